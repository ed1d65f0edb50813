import { tx } from '../i18n/i18n.ts';
/**
 * Said where a self-service page would otherwise show a form that can only fail: self-service is off (or has no way
 * to deliver its messages), who can still help, and what the operator changes to turn it on.
 */
export function HowToTurnOnSelfService() {
  return (
    <p class="aside">
      {tx('selfService.howToTurnOn', {
        setting: (chunks) => <code>{chunks}</code>,
        command: (chunks) => <code>{chunks}</code>,
      })}
    </p>
  );
}
