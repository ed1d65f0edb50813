import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { asApiError } from '../hooks/use-api.ts';
import { t, tx } from '../i18n/i18n.ts';
import { channelDone, type FarcasterChannel, openChannel, POLL_MS } from '../wallet/farcaster.ts';
import { ErrorNotice } from './ErrorNotice.tsx';
import { ProviderMark } from './ProviderMark.tsx';

/**
 * Sign In With Farcaster (or linking a Farcaster account): the button opens a channel, then the QR code (to scan on a
 * desktop) and the link (to open the app on this phone) are shown with a waiting status until the person approves in
 * the Farcaster app; `done` runs after the server accepted.
 */
export function FarcasterButton({ base, label, done }: { base: string; label: string; done: () => void }) {
  const [open, setOpen] = useState<FarcasterChannel | null>(null);
  const [starting, setStarting] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  // The latest `done`, read when the channel completes: a parent's new callback must not restart the polling.
  const doneRef = useRef(done);
  doneRef.current = done;

  const start = async () => {
    setStarting(true);
    setError(null);
    try {
      setOpen(await openChannel(base));
    } catch (caught) {
      setError(asApiError(caught));
    } finally {
      setStarting(false);
    }
  };

  useEffect(() => {
    if (!open) return;
    let stopped = false;
    let timer: ReturnType<typeof setTimeout>;
    const poll = async () => {
      try {
        const finished = await channelDone(base, open.channel);
        if (stopped) return;
        if (!finished) {
          timer = setTimeout(() => void poll(), POLL_MS);
          return;
        }
        setOpen(null);
        doneRef.current();
      } catch (caught) {
        if (stopped) return;
        // Refused or expired: the channel is spent, so the person starts again with the button.
        setOpen(null);
        setError(asApiError(caught));
      }
    };
    timer = setTimeout(() => void poll(), POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [open, base]);

  if (!open)
    return (
      <>
        <ErrorNotice error={error} />
        <button type="button" class="secondary" disabled={starting} onClick={() => void start()}>
          <ProviderMark name="Farcaster" /> {label}
        </button>
      </>
    );
  return (
    <div class="farcaster-channel">
      <p role="status">{t('farcaster.waiting')}</p>
      {/* An <img>, not inline markup: the server's SVG is shown as a picture and can run nothing. */}
      <img
        class="farcaster-qr"
        src={`data:image/svg+xml;charset=utf-8,${encodeURIComponent(open.qr_svg)}`}
        alt={t('farcaster.qrAlt')}
        width={200}
        height={200}
      />
      <p class="hint">
        {tx('farcaster.scan', {
          link: (chunks) => <a href={open.url}>{chunks}</a>,
          minutes: Math.round(open.expires_in / 60),
        })}
      </p>
      <button type="button" class="secondary" onClick={() => setOpen(null)}>
        {t('common.cancel')}
      </button>
    </div>
  );
}
