/**
 * Name/value pairs as a definition list (the dashboard's status blocks). A value that is data (a name, a
 * version, a process id, the server's own text) is marked so (translate="no"), not taken for UI text;
 * `wrap` lets a long one break anywhere.
 */
export type FactRow = [name: string, value: string, opts?: { data?: boolean; wrap?: boolean }];

export function Facts({ rows }: { rows: FactRow[] }) {
  return (
    <dl class="facts">
      {rows.map(([name, value, opts]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd class={opts?.wrap ? "wrap" : undefined} translate={opts?.data ? false : undefined}>
            {value}
          </dd>
        </div>
      ))}
    </dl>
  );
}
