/** Name/value pairs as a definition list (the dashboard's status blocks). */
export function Facts({ rows }: { rows: Array<[string, string]> }) {
  return (
    <dl class="facts">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
