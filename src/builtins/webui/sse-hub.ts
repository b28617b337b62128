/**
 * The web UI's event stream: one wildcard subscription on the bus fanned out to every SSE client. Each
 * event is encoded once; replayable kinds also go into the ring for clients that reconnect with
 * Last-Event-ID. The bus handler only appends to bounded per-client queues (see sse-client.ts), so no
 * client, however slow, can hold up a publisher. Each client's stream keeps its own heartbeat.
 *
 * Replay and live never overlap or leave a hole: a client is given the ring's contents and joins the
 * fan-out in one synchronous step (the bus delivers synchronously too, so no event can fall in between),
 * and each client skips any event at or below the last seq it was given.
 */
import type { AgentEvent, EventType, PluginSDK } from "@homeagent/sdk";
import { ApiError, type SseStats, type WebLimits } from "./context.js";
import { SseClient, type SseClientInfo } from "./sse-client.js";
import { commentFrame, eventFrame, noticeFrame, retryFrame } from "./sse-frame.js";
import { EventRing } from "./sse-ring.js";
import type { SseSocket, SseStream } from "./sse-stream.js";

/** Kept in the ring and replayed; token deltas (content_delta, reasoning_delta) are live only. */
const REPLAYED_TYPES: ReadonlySet<EventType> = new Set<EventType>([
  "agent_output",
  "reasoning",
  "tool_call",
  "stage",
  "agent_llm_chain",
  "system",
]);

const HEARTBEAT = commentFrame("heartbeat");
const MAX_ID_DIGITS = 15;

export interface SseConnectOptions {
  /** Last-Event-ID as the client sent it (header or query); undefined for a fresh start. */
  lastEventId?: string;
  /** The connection: what still waits in it counts for the stall rule, and it is cut with a stalled client. */
  socket?: SseSocket;
  /**
   * Asked at every heartbeat: false once the credentials the stream was opened with are gone (the session
   * logged out, expired or ended by a credentials reset); the stream is then ended.
   */
  stillAuthorized?: () => boolean;
  /** Given the new client's stream before the answer goes out (e.g. to end it the moment its session ends). */
  onOpen?: (stream: SseStream) => void;
  /** Opened by a logged-in dashboard, not with an API key. */
  dashboard?: boolean;
}

export class SseHub {
  private readonly ring: EventRing;
  private readonly clients = new Set<SseClient>();
  /** The clients that are logged-in dashboards. */
  private readonly dashboards = new Set<SseClient>();
  private unsubscribe: (() => void) | null = null;
  private closed = false;
  private nextId = 1;
  private sent = 0;
  private dropped = 0;
  private replayed = 0;
  /** Clients already reported as not keeping up, so the log gets one line per client. */
  private readonly warned = new WeakSet<SseClient>();

  /** `onDashboards`: told how many logged-in dashboards are connected, whenever that changes. */
  constructor(
    private readonly sdk: PluginSDK,
    private readonly limits: WebLimits,
    private readonly onDashboards: (count: number) => void = () => {},
  ) {
    this.ring = new EventRing(limits.sseRing);
  }

  /** Replayable events whose frame `match` accepts: counted, and removed when `remove` (forgetting). */
  forget(match: (frame: Uint8Array) => boolean, remove: boolean): number {
    return this.ring.drop(match, remove);
  }

  /** Subscribes to the bus (once). */
  start(): void {
    if (this.unsubscribe || this.closed) return;
    this.ring.begin(publishedSoFar(this.sdk));
    this.unsubscribe = this.sdk.subscribe("*", this.onEvent);
  }

  /**
   * A new stream: replay after `lastEventId` (a `gap` notice first when the ring no longer reaches back
   * that far), then live events. 503 sse_full when the client limit is reached; 400 for a malformed id.
   */
  connect(opts: SseConnectOptions = {}): Response {
    if (this.closed || !this.unsubscribe) {
      throw new ApiError(503, "sse_unavailable", "the event stream is not running; try again once the daemon is up");
    }
    const lastId = parseLastEventId(opts.lastEventId);
    if (this.clients.size >= this.limits.maxSseClients) {
      throw new ApiError(
        503,
        "sse_full",
        `too many event streams are open (at most ${this.limits.maxSseClients}); close another tab or client`,
        { retryAfterS: 5 },
      );
    }
    const client = new SseClient(
      this.nextId++,
      this.limits.sseQueue,
      {
        onSent: (count) => {
          this.sent += count;
        },
        onClosed: (c) => {
          this.clients.delete(c);
          if (this.dashboards.delete(c)) this.onDashboards(this.dashboards.size);
        },
      },
      {
        heartbeatMs: this.limits.sseHeartbeatMs,
        heartbeat: HEARTBEAT,
        socket: opts.socket,
        stillAuthorized: opts.stillAuthorized,
      },
    );
    client.preload(retryFrame(this.limits.sseRetryMs));
    if (lastId !== undefined) this.replay(client, lastId);
    this.clients.add(client);
    if (opts.dashboard) {
      this.dashboards.add(client);
      this.onDashboards(this.dashboards.size);
    }
    opts.onOpen?.(client.out);
    return new Response(client.stream, {
      status: 200,
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache, no-transform",
        "x-accel-buffering": "no",
      },
    });
  }

  stats(): SseStats {
    return {
      clients: this.clients.size,
      dashboards: this.dashboards.size,
      maxClients: this.limits.maxSseClients,
      sent: this.sent,
      dropped: this.dropped,
      replayed: this.replayed,
      ring: this.ring.size,
    };
  }

  /** Per-client counters (queue, sent, dropped), for inspection. */
  clientInfo(): SseClientInfo[] {
    return [...this.clients].map((c) => c.info());
  }

  /** Ends every stream (what is queued is still sent) and unsubscribes. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    for (const client of [...this.clients]) client.end();
    this.clients.clear();
    // Not reported: the hub closes with the plugin, whose stop takes its client count with it.
    this.dashboards.clear();
  }

  private replay(client: SseClient, lastId: number): void {
    const { gap, entries } = this.ring.since(lastId);
    if (gap) client.preload(noticeFrame("gap", gap));
    for (const entry of entries) client.preload(entry.frame, entry.seq);
    this.replayed += entries.length;
  }

  private readonly onEvent = (event: AgentEvent): void => {
    this.ring.saw(event.seq);
    const replayable = REPLAYED_TYPES.has(event.type);
    if (!replayable && this.clients.size === 0) return;
    const frame = eventFrame(event);
    if (replayable) this.ring.push(event.seq, frame);
    for (const client of this.clients) {
      if (client.pushEvent(event.seq, frame)) continue;
      this.dropped += 1;
      if (!this.warned.has(client)) {
        this.warned.add(client);
        this.sdk.log.warn(
          `webui: SSE client ${client.id} is not reading its events; its queue of ${this.limits.sseQueue} is full, so further events to it are dropped (it is told the range it missed)`,
        );
      }
    }
  };
}

/** The bus's last seq when the hub starts; 0 when the plugin may not read the kernel's status. */
function publishedSoFar(sdk: PluginSDK): number {
  try {
    return sdk.kernel.status().events.published;
  } catch {
    return 0;
  }
}

function parseLastEventId(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const text = raw.trim();
  if (!/^\d+$/.test(text) || text.length > MAX_ID_DIGITS) {
    throw new ApiError(
      400,
      "invalid_last_event_id",
      "Last-Event-ID (or ?lastEventId=) must be the numeric id of an event this stream sent",
    );
  }
  return Number(text);
}
