/**
 * SocialStore: the people in the user's life, as a view on the graph (inventory §5.5). A person is an
 * entity of type Person; relations between people are ordinary graph facts, so recall, merge and
 * forgetting treat them like any other. Traits (age, birthday, "likes long walks") live in the graph's
 * person_traits table rather than as relations to value entities: a value is free text (a number, a
 * date, a phrase) that would fail the entity-name rules, overwriting is a primary-key upsert, and values
 * shared by many people ("28") would otherwise become hub entities linking strangers in every walk.
 */
import type { CommitResult } from "./fact-writer.js";
import type { GraphDB } from "./graph.js";
import { GraphError, MAX_DEPTH } from "./rules.js";

export interface PersonInfo {
  name: string;
  type: string;
  mentions: number;
  traits: Record<string, string>;
  relations: Array<{ relation: string; other: string; direction: "out" | "in" }>;
}

export interface PersonNetwork {
  center: string;
  /** People reached, with their distance in hops (the center is 0). */
  people: Array<{ name: string; distance: number }>;
  relations: Array<{ from: string; relation: string; to: string }>;
  truncated: boolean;
}

/** One active person-to-person relation, as the network walk needs it. */
interface Link {
  sourceId: number;
  targetId: number;
  subject: string;
  relation: string;
  object: string;
}

const PERSON = "Person";
const MAX_PEOPLE = 100;
const MAX_LINKS = 300;
const PERSON_RELATIONS = 100;

export class SocialStore {
  constructor(private readonly graph: GraphDB) {}

  /** The person's traits and active relations, or null when no entity of that name exists. */
  person(name: string): PersonInfo | null {
    const entity = this.graph.entity(name);
    if (!entity) return null;
    const traits: Record<string, string> = {};
    for (const t of this.graph.traits(entity.name)) traits[t.trait] = t.value;
    return {
      name: entity.name,
      type: entity.type,
      mentions: entity.mentionCount,
      traits,
      relations: this.graph
        .relationsOf(entity.name, PERSON_RELATIONS)
        .map((r) =>
          r.sourceId === entity.id
            ? { relation: r.relation, other: r.object, direction: "out" as const }
            : { relation: r.relation, other: r.subject, direction: "in" as const },
        ),
    };
  }

  /** Overwrites one trait; returns the value it replaced, if any. */
  setTrait(name: string, trait: string, value: string): { previous: string | null } {
    return this.graph.setTrait(name, trait, value);
  }

  /**
   * Relates two people both ways (a → b and b → a with the same relation), both typed Person. Asked for on
   * purpose (the model's tool, a plugin), so it is an explicit commit: a link the user had removed comes back.
   */
  relate(a: string, relation: string, b: string, opts: { sessionId?: string } = {}): CommitResult {
    const triple = { relation, subjectType: PERSON, objectType: PERSON };
    const result = this.graph.commit(
      [
        { ...triple, subject: a, object: b },
        { ...triple, subject: b, object: a },
      ],
      { ...opts, explicit: true },
    );
    if (result.skipped.length > 0) {
      throw new GraphError({
        code: "graph_bad_argument",
        message: `cannot relate: ${result.skipped[0].replace(/^#\d+: /, "")}`,
      });
    }
    return result;
  }

  /** People within `depth` hops of `name` over person-to-person relations; null when `name` is unknown. */
  network(name: string, depth = 2): PersonNetwork | null {
    if (!Number.isInteger(depth) || depth < 1 || depth > MAX_DEPTH) {
      throw new GraphError({ code: "graph_bad_argument", message: `depth must be an integer from 1 to ${MAX_DEPTH}` });
    }
    const center = this.graph.entity(name);
    if (!center) return null;
    const distance = new Map<number, number>([[center.id, 0]]);
    const names = new Map<number, string>([[center.id, center.name]]);
    const links = new Map<string, PersonNetwork["relations"][number]>();
    let frontier = [center.id];
    let truncated = false;
    for (let hop = 1; hop <= depth && frontier.length > 0 && !truncated; hop++) {
      const next: number[] = [];
      for (const r of this.personLinks(frontier)) {
        if (links.size >= MAX_LINKS) {
          truncated = true;
          break;
        }
        for (const [id, n] of [
          [r.sourceId, r.subject],
          [r.targetId, r.object],
        ] as const) {
          if (distance.has(id)) continue;
          if (distance.size >= MAX_PEOPLE) {
            truncated = true;
            continue;
          }
          distance.set(id, hop);
          names.set(id, n);
          next.push(id);
        }
        // a → b and b → a of one relate() are one link to show.
        const [x, y] = r.sourceId < r.targetId ? [r.subject, r.object] : [r.object, r.subject];
        const key = `${x}\u0000${r.relation}\u0000${y}`;
        if (distance.has(r.sourceId) && distance.has(r.targetId) && !links.has(key)) {
          links.set(key, { from: r.subject, relation: r.relation, to: r.object });
        }
      }
      frontier = next;
    }
    return {
      center: center.name,
      people: [...distance].map(([id, d]) => ({ name: names.get(id) ?? "", distance: d })),
      relations: [...links.values()],
      truncated,
    };
  }

  private personLinks(frontier: number[]): Link[] {
    return this.graph.db
      .prepare(
        `SELECT r.source_id AS sourceId, r.target_id AS targetId, s.name AS subject,
                r.relation_type AS relation, t.name AS object
         FROM relations r JOIN entities s ON s.id = r.source_id JOIN entities t ON t.id = r.target_id
         WHERE r.status = 'active' AND s.type = 'Person' AND t.type = 'Person'
           AND (r.source_id IN (SELECT value FROM json_each(@frontier)) OR r.target_id IN (SELECT value FROM json_each(@frontier)))
         ORDER BY r.id LIMIT @limit`,
      )
      .all({ frontier: JSON.stringify(frontier), limit: MAX_LINKS + 1 }) as Link[];
  }
}
