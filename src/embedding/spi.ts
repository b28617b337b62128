/**
 * The embedding SPI as the daemon uses it: the public types from the SDK plus a registry of provider
 * factories by name, so plugins can add providers and configuration picks one.
 */
import type { EmbeddingFactory, EmbeddingProvider } from "@homeagent/sdk";

export type { EmbeddingFactory, EmbeddingInfo, EmbeddingInput, EmbeddingProvider, Modality } from "@homeagent/sdk";
export { ErrModalityUnsupported, textInput } from "@homeagent/sdk";

export class EmbeddingRegistry {
  private readonly factories = new Map<string, EmbeddingFactory>();

  register(name: string, factory: EmbeddingFactory): void {
    if (this.factories.has(name)) throw new Error(`embedding provider "${name}" is already registered`);
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
      throw new Error(`no embedding provider named "${name}" (registered: ${this.names().join(", ") || "none"})`);
    }
    return factory(settings);
  }
}
