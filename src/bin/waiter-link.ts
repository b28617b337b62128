/**
 * A connection to homed that outlives a daemon restart: `waiter mcp` lives as long as its MCP client (hours),
 * and homed may stop and start again meanwhile. A lost connection is opened anew, and authenticated, on the
 * next request; a request that was waiting when it was lost fails with the reason.
 */
import type { FinalFrame } from "@homeagent/cli-protocol";
import type { WaiterClient } from "./waiter-client.js";

export class DaemonLink {
  private client: Promise<WaiterClient> | undefined;

  constructor(private readonly open: () => Promise<WaiterClient>) {}

  async request(line: string): Promise<FinalFrame> {
    return (await this.connected()).request(line);
  }

  close(): void {
    this.client?.then(
      (client) => client.close(),
      () => {},
    );
    this.client = undefined;
  }

  private connected(): Promise<WaiterClient> {
    if (this.client) return this.client;
    const opening = this.open();
    this.client = opening;
    const forget = (): void => {
      if (this.client === opening) this.client = undefined;
    };
    opening.then((client) => client.lost.then(forget), forget);
    return opening;
  }
}
