/**
 * The daemon's LLM sources kept in step with the config center: the ProviderManager is built from
 * `core.llm.*` at start (or from a local Ollama when nothing is configured) and rebuilt whenever one of
 * those settings changes, without a restart; the same happens when an adapter is saved through the
 * adapters API, so a source that waited for that script starts working. Separate from bootstrap.ts, which
 * only wires subsystems.
 */
import type { AdaptersAPI, LlmAPI, Logger } from "@homeagent/sdk";
import type { ConfigRegistry } from "../../config/registry.js";
import { errorMessage } from "../../util/errors.js";
import { redactSecret } from "../../util/secret.js";
import { AdapterAdmin } from "../adapter-admin.js";
import { ProviderManager, type ProviderManagerOptions } from "../manager.js";
import { DEFAULT_OLLAMA_URL } from "./local-models.js";
import {
  buildSources,
  describeSources,
  detectLocalSource,
  SourceProber,
  sourceConfigs,
  sourceLimits,
} from "./providers.js";
import { testSource } from "./source-test.js";

export interface LlmSourcesOptions {
  config: ConfigRegistry;
  dataDir: string;
  /** Where to look for a local Ollama when no source is configured; "" = do not look. */
  ollamaUrl?: string;
  env: Record<string, string | undefined>;
  log: Logger;
  /** Told after every successful LLM call (the usage meter). */
  onCall?: ProviderManagerOptions["onCall"];
  /** Limit of each adapter call, in ms; default LuaAdaptedProvider's (tests shrink it). */
  adapterTimeoutMs?: number;
}

export interface LlmSources {
  llm: ProviderManager;
  /** What plugins see as `sdk.llm`. */
  api: LlmAPI;
  /** What plugins see as `sdk.adapters`. */
  adapters: AdaptersAPI;
  /** Where ProviderManager notices go once the event bus exists; before that they are only logged. */
  announceTo(publish: (payload: Record<string, unknown>) => void): void;
  /** Stops following the config and closes every provider (a busy one once its call has ended). */
  close(): void;
}

export async function startLlmSources(opts: LlmSourcesOptions): Promise<LlmSources> {
  const { config, dataDir, log } = opts;
  let announce: (payload: Record<string, unknown>) => void = () => {};
  const llm = new ProviderManager({
    // Read at each retry: like every core.llm.* setting, a change applies without a restart.
    retryDelayMs: () => config.getDuration("core.llm.retry_delay"),
    log,
    onNotice: (notice) => announce({ ...notice }),
    onCall: opts.onCall,
  });
  const ollamaUrl = opts.ollamaUrl ?? opts.env.HOMEAGENT_OLLAMA_URL ?? DEFAULT_OLLAMA_URL;
  const local = config.sourceNames().length === 0 && ollamaUrl ? await detectLocalSource(ollamaUrl, log) : undefined;
  const prober = new SourceProber(log);

  const applyPreferred = () => {
    const name = config.get("core.llm.provider") ?? "";
    try {
      llm.setPreferred(name);
    } catch (err) {
      log.warn(`core.llm.provider: ${errorMessage(err)}; using the priority order`);
      llm.setPreferred("");
    }
  };
  const reload = () => {
    const configs = sourceConfigs(config, local);
    llm.setSources(buildSources(configs, dataDir, sourceLimits(config), log, opts.adapterTimeoutMs));
    applyPreferred();
    if (llm.hasSources()) log.info(describeSources(llm));
    else log.warn(describeSources(llm));
    return prober.probe(configs, llm);
  };
  await reload();

  // Several keys usually change together (a source's base_url, model and key): rebuild once for all.
  let reloadQueued = false;
  let closed = false;
  const queueReload = () => {
    if (reloadQueued) return;
    reloadQueued = true;
    queueMicrotask(() => {
      reloadQueued = false;
      if (closed) return;
      try {
        reload().catch((err) => log.warn(`probing LLM sources failed: ${errorMessage(err)}`));
      } catch (err) {
        log.error(`rebuilding the LLM sources failed; keeping the previous ones: ${errorMessage(err)}`);
      }
    });
  };
  const off = config.onChange((key) => {
    if (key.startsWith("core.llm.")) queueReload();
  });
  const adapters = new AdapterAdmin({
    dataDir,
    sources: () => sourceConfigs(config, local),
    // Sources already built follow their file on their own; one whose adapter was missing is built now.
    onSaved: queueReload,
  });
  // Every key in effect, not only the tested source's: an error body may echo any of them.
  const redact = (text: string) => config.secrets().reduce((out, secret) => redactSecret(out, secret), text);

  return {
    llm,
    api: {
      sources: () => llm.sources(),
      use: (name) => {
        llm.setPreferred(name);
        config.set("core.llm.provider", name);
      },
      test: (name, testOpts) => testSource(llm, name, { timeoutMs: testOpts?.timeoutMs, redact }),
    },
    adapters,
    announceTo: (publish) => {
      announce = publish;
    },
    close: () => {
      closed = true;
      off();
      llm.close();
    },
  };
}
