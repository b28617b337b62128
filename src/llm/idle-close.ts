/**
 * Closing a provider that has been replaced, but only once its last call has ended: a source changed in the
 * settings (ProviderManager) or an adapter changed on disk (ReloadingProvider) must not cut a reply that is
 * streaming, and must not keep the old Lua worker alive forever either. One copy of the counting, so both
 * close exactly once and report a failing close the same way.
 */
import { errorMessage } from "../util/errors.js";

export class IdleClose {
  private calls = 0;
  private wasRetired = false;
  private closed = false;

  /** `close` frees the provider; `warn` hears why it failed (a close never throws to the caller). */
  constructor(
    private readonly close: () => unknown,
    private readonly warn: (message: string) => void,
  ) {}

  /** A call started on the provider. */
  begin(): void {
    this.calls++;
  }

  /** That call ended (in any way): closes a retired provider left idle. */
  end(): void {
    this.calls = Math.max(0, this.calls - 1);
    this.closeIfIdle();
  }

  /** Replaced or closed: no new call is to start on the provider. */
  get retired(): boolean {
    return this.wasRetired;
  }

  /** The provider was replaced: closed now if idle, else when its last call ends. */
  retire(): void {
    this.wasRetired = true;
    this.closeIfIdle();
  }

  private closeIfIdle(): void {
    if (!this.wasRetired || this.calls > 0 || this.closed) return;
    this.closed = true;
    try {
      Promise.resolve(this.close()).catch((err) => this.warn(errorMessage(err)));
    } catch (err) {
      this.warn(errorMessage(err));
    }
  }
}
