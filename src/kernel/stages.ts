/**
 * StageHost: runs the handlers of one stage concurrently on one shared StageContext. Each handler is
 * isolated: a throw or rejection is recorded in `ctx.errors` and the others run to completion.
 */
import type { Stage, StageContext, StageHandler, StageScope, TokenUsage } from "@homeagent/sdk";
import { STAGES } from "@homeagent/sdk";
import type { MutableStageContext } from "./types.js";

interface Registration {
  plugin: string;
  stage: Stage;
  handler: StageHandler;
  scope: StageScope;
}

const TOOL_STAGES: ReadonlySet<Stage> = new Set(["before_toolcall", "after_toolcall"]);

export class StageHost {
  private regs: Registration[] = [];

  constructor(private readonly onError: (plugin: string, stage: Stage, err: unknown) => void = () => {}) {}

  register(plugin: string, stage: Stage, handler: StageHandler, scope: StageScope = "global"): () => void {
    if (!STAGES.includes(stage)) {
      throw new Error(`unknown stage "${stage}": use one of ${STAGES.join(", ")}`);
    }
    const reg: Registration = { plugin, stage, handler, scope };
    this.regs.push(reg);
    return () => {
      this.regs = this.regs.filter((r) => r !== reg);
    };
  }

  unregisterPlugin(plugin: string): number {
    const before = this.regs.length;
    this.regs = this.regs.filter((r) => r.plugin !== plugin);
    return before - this.regs.length;
  }

  count(stage?: Stage): number {
    return stage ? this.regs.filter((r) => r.stage === stage).length : this.regs.length;
  }

  /**
   * Runs every handler of `stage`. For tool stages, `toolOwner` names the plugin that owns the tool, so
   * handlers registered with scope "own_tools" only see their own plugin's tools.
   */
  async run(stage: Stage, ctx: MutableStageContext, toolOwner?: string): Promise<void> {
    ctx.stage = stage;
    const regs = this.regs.filter(
      (r) => r.stage === stage && (r.scope === "global" || !TOOL_STAGES.has(stage) || r.plugin === toolOwner),
    );
    if (regs.length === 0) return;
    const results = await Promise.allSettled(regs.map((r) => invoke(r.handler, ctx)));
    results.forEach((res, i) => {
      if (res.status === "fulfilled") return;
      const plugin = regs[i].plugin;
      ctx.errors.push({ plugin, stage, message: errorMessage(res.reason) });
      this.onError(plugin, stage, res.reason);
    });
  }
}

async function invoke(handler: StageHandler, ctx: StageContext): Promise<void> {
  await handler(ctx);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function newStageContext(init: {
  requestId: string;
  source: string;
  channel: string;
  rawMessage: string;
  userId?: string;
  groupId?: string;
  noMemory?: boolean;
}): MutableStageContext {
  return {
    stage: "on_input",
    requestId: init.requestId,
    source: init.source,
    channel: init.channel,
    rawMessage: init.rawMessage,
    userId: init.userId ?? "",
    groupId: init.groupId ?? "",
    contextMsgs: [],
    llmText: "",
    reasoningContent: "",
    tokenUsage: null as TokenUsage | null,
    toolCalls: [],
    toolResults: [],
    finalText: "",
    response: null,
    phase: "",
    memory: [],
    noMemory: init.noMemory ?? false,
    extra: {},
    errors: [],
  };
}
