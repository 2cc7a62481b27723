/** An honest placeholder: this capability does not exist yet, and why. Never fake data. */
export function NotAvailable({ what, why }: { what: string; why: string }) {
  return (
    <div className="notice notice-info not-available">
      <p>
        <strong>{what}: not available yet.</strong> {why}
      </p>
    </div>
  );
}
