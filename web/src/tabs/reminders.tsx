/**
 * Reminders: what the agent kept for the dashboard while none was open (read = removed: shown here once,
 * then gone from the daemon, and the section's badge clears), the timers set (each can be cancelled), and
 * approvals — the standing "always" answers (each can be revoked) and the last questions with how they ended.
 */
import { useEffect, useState } from "preact/hooks";
import { outcomeText } from "../approval-outcome";
import { ErrorLine, Loading } from "../components/status";
import { Time } from "../components/time";
import { useApi } from "../components/use-api";
import { errorText } from "../error-text";
import { useT } from "../i18n";
import {
  type Approvals,
  cancelTimer,
  type InboxMessage,
  loadInbox,
  markRead,
  revokeApproval,
  type Timer,
} from "../reminders-api";

export function RemindersTab({ onRead }: { onRead?: () => void }) {
  const t = useT();
  const [kept, setKept] = useState<InboxMessage[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const timers = useApi<{ timers: Timer[] }>("/api/v1/timers", 10_000);
  const approvals = useApi<Approvals>("/api/v1/approvals", 10_000);

  useEffect(() => {
    loadInbox()
      .then(async ({ messages }) => {
        setKept(messages);
        if (messages.length > 0) await markRead(messages.map((m) => m.id));
        onRead?.();
      })
      .catch((err) => setError(errorText(t, err)));
  }, []);

  const act = async (work: () => Promise<unknown>, after: () => Promise<void>) => {
    try {
      await work();
      setError(null);
    } catch (err) {
      setError(errorText(t, err));
    }
    await after();
  };

  return (
    <div class="stack">
      <h1>{t.tabReminders}</h1>
      <ErrorLine message={error} />
      <section class="card" aria-labelledby="r-inbox">
        <h2 id="r-inbox">{t.inboxTitle}</h2>
        {kept === null ? (
          <Loading />
        ) : kept.length === 0 ? (
          <p class="hint">{t.inboxEmpty}</p>
        ) : (
          <ul class="plain-list">
            {kept.map((m) => (
              <li key={m.id}>
                <Time ms={m.createdAt} /> <span translate={false}>{m.text}</span>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section class="card" aria-labelledby="r-timers">
        <h2 id="r-timers">{t.timersTitle}</h2>
        <ErrorLine message={timers.error} />
        {!timers.data ? (
          <Loading />
        ) : timers.data.timers.length === 0 ? (
          <p class="hint">{t.timersEmpty}</p>
        ) : (
          <ul class="plain-list">
            {timers.data.timers.map((timer) => (
              <li key={timer.id} class="row">
                <span>
                  <Time ms={timer.nextAt} />
                  {timer.cron && <code translate={false}> {timer.cron}</code>}{" "}
                  <span translate={false}>{timer.message}</span>
                </span>
                <button
                  type="button"
                  aria-label={t.cancelTimerNamed.replace("{message}", timer.message)}
                  onClick={() => void act(() => cancelTimer(timer.id), timers.reload)}
                >
                  {t.cancelTimer}
                </button>
              </li>
            ))}
          </ul>
        )}
      </section>
      <section class="card" aria-labelledby="r-approvals">
        <h2 id="r-approvals">{t.approvalsTitle}</h2>
        <ErrorLine message={approvals.error} />
        {!approvals.data ? (
          <Loading />
        ) : (
          <>
            <h3>{t.approvalsStanding}</h3>
            {approvals.data.remembered.length === 0 ? (
              <p class="hint">{t.approvalsNoneStanding}</p>
            ) : (
              <ul class="plain-list">
                {approvals.data.remembered.map((r) => (
                  <li key={r.id} class="row">
                    <span>
                      <span translate={false}>{r.plugin}</span>: <code translate={false}>{r.question}</code>{" "}
                      <span class="hint">{t.approvalUses.replace("{n}", String(r.uses))}</span>
                    </span>
                    <button
                      type="button"
                      class="danger"
                      aria-label={t.revokeNamed.replace("{question}", r.question)}
                      onClick={() => void act(() => revokeApproval(r.id), approvals.reload)}
                    >
                      {t.revoke}
                    </button>
                  </li>
                ))}
              </ul>
            )}
            <h3>{t.approvalsRecent}</h3>
            {approvals.data.recent.length === 0 ? (
              <p class="hint">{t.approvalsNoneRecent}</p>
            ) : (
              <ul class="plain-list">
                {approvals.data.recent.map((r) => (
                  <li key={`${r.id}-${r.askedAt}`}>
                    <Time ms={r.askedAt} /> <strong>{outcomeText(t, r.outcome)}</strong>
                    {r.by ? ` (${r.by})` : ""} <span translate={false}>{r.plugin}</span>:{" "}
                    <code translate={false}>{r.question}</code>
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </section>
    </div>
  );
}
