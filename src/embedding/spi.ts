/**
 * The embedding SPI as the daemon uses it: the public types from the SDK plus a registry of provider
 * factories by name, so plugins can add providers and configuration picks one. The registry is where a
 * provider written against a specification version this daemon does not implement is turned away.
 */
import { EMBEDDING_SPECIFICATION_VERSION, type EmbeddingFactory, type EmbeddingProvider } from "@homeagent/sdk";
import { EmbeddingError } from "./errors.js";

export type { EmbeddingFactory, EmbeddingInfo, EmbeddingInput, EmbeddingProvider, Modality } from "@homeagent/sdk";
export { EMBEDDING_SPECIFICATION_VERSION, ErrModalityUnsupported, textInput } from "@homeagent/sdk";

/**
 * The specification versions this daemon implements: the one of the SDK it is built with. Accepting an
 * older one as well would be a deliberate addition here, with whatever adapting it needs.
 */
const SUPPORTED_SPECIFICATION_VERSIONS: ReadonlySet<number> = new Set([EMBEDDING_SPECIFICATION_VERSION]);

export class EmbeddingRegistry {
  private readonly factories = new Map<string, EmbeddingFactory>();

  register(name: string, factory: EmbeddingFactory): void {
    if (this.factories.has(name)) {
      throw new EmbeddingError({
        code: "embedding_provider_name",
        message: `embedding provider "${name}" is already registered; register it under another name`,
      });
    }
    this.factories.set(name, factory);
  }

  unregister(name: string): void {
    this.factories.delete(name);
  }

  names(): string[] {
    return [...this.factories.keys()].sort();
  }

  async create(name: string, settings: Record<string, string>): Promise<EmbeddingProvider> {
    const factory = this.factories.get(name);
    if (!factory) {
      throw new EmbeddingError({
        code: "embedding_provider_name",
        message: `no embedding provider named "${name}" (registered: ${this.names().join(", ") || "none"})`,
      });
    }
    return checkSpecificationVersion(name, await factory(settings));
  }
}

function checkSpecificationVersion(name: string, provider: EmbeddingProvider): EmbeddingProvider {
  const version: unknown = provider.specificationVersion;
  if (typeof version === "number" && SUPPORTED_SPECIFICATION_VERSIONS.has(version)) return provider;
  const supported = [...SUPPORTED_SPECIFICATION_VERSIONS].join(", ");
  const declared =
    version === undefined
      ? "declares no specificationVersion"
      : `implements specification version ${JSON.stringify(version)}`;
  throw new EmbeddingError({
    code: "embedding_specification_version",
    message: `embedding provider "${name}" ${declared}, but this daemon supports version ${supported}; use a build of the plugin made for this daemon's @homeagent/sdk`,
  });
}
