/**
 * Said where a self-service page would otherwise show a form that can only fail: self-service is off (or has no way
 * to deliver its messages), who can still help, and what the operator changes to turn it on.
 */
export function HowToTurnOnSelfService() {
  return (
    <p class="aside">
      To let people do this themselves, the operator sets <code>self_service.enabled = true</code> and a delivery method
      (<code>gatehouse config delivery</code>), then restarts Gatehouse.
    </p>
  );
}
