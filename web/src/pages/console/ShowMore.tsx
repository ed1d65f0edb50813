import { ErrorNotice } from '../../components/ErrorNotice.tsx';
import type { PagedList } from '../../hooks/use-paged-list.ts';

/** Below a paged console table: the next page's failure, and a button that appends it while there is one. */
export function ShowMore({ list, noun }: { list: PagedList<unknown>; noun: string }) {
  return (
    <>
      <ErrorNotice error={list.moreError} />
      {list.items && list.more && (
        <button type="button" class="secondary" onClick={list.loadMore} disabled={list.loadingMore || list.loading}>
          {list.loadingMore ? 'Loading…' : `Show more ${noun}`}
        </button>
      )}
    </>
  );
}
