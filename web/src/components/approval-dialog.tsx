/**
 * The approval dialog: when a tool asks the user (an `approval` event, or one already waiting when the page
 * opens), a modal dialog shows which plugin asks and exactly what — the daemon has made control characters
 * and bidi marks visible, and the text is shown as text, never as markup — with the choices the tool
 * offers: once, always (this exact request), deny. A hidden tab gets a browser notification. The dialog
 * closes when the question is answered here or elsewhere (waiter), times out or is cancelled. The buttons
 * wait a second after a question appears, so a click meant for the one before cannot answer it.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { errorText } from "../error-text";
import { events } from "../events";
import { useT } from "../i18n";
import { notifyIfHidden } from "../notify";
import { type ApprovalChoice, answerApproval, loadApprovals, type PendingApproval } from "../reminders-api";

const CHOICE_LABEL = { once: "approveOnce", always: "approveAlways", deny: "approveDeny" } as const;
/** As waiter's: a question is answerable a second after it is shown. */
const SETTLE_MS = 1_000;

export function ApprovalDialog() {
  const t = useT();
  const [waiting, setWaiting] = useState<PendingApproval[]>([]);
  const [error, setError] = useState<string | null>(null);
  const [now, setNow] = useState(Date.now());
  const [settled, setSettled] = useState(false);
  const dialog = useRef<HTMLDialogElement>(null);

  useEffect(() => {
    const add = (a: PendingApproval) => setWaiting((list) => (list.some((x) => x.id === a.id) ? list : [...list, a]));
    const drop = (id: string) => setWaiting((list) => list.filter((x) => x.id !== id));
    const off = events.on("approval", (e) => {
      const p = e.payload;
      if (p.phase === "closed") drop(String(p.id));
      else if (p.approval && typeof p.approval === "object") {
        const a = p.approval as PendingApproval;
        add(a);
        notifyIfHidden({ title: t.approvalTitle, body: `${a.plugin}: ${a.question}`, section: "chat", tag: a.id });
      }
    });
    // Questions asked before the page opened, and after a reconnect (events may have been missed).
    const sync = () =>
      void loadApprovals()
        .then((all) => setWaiting(all.pending))
        .catch(() => undefined);
    sync();
    const offMissed = events.onMissed(sync);
    return () => {
      off();
      offMissed();
    };
  }, []);

  const head = waiting[0];
  useEffect(() => {
    const el = dialog.current;
    if (!el) return;
    if (head && !el.open) el.showModal();
    if (!head && el.open) el.close();
    setError(null);
    setSettled(false);
    const timer = setTimeout(() => setSettled(true), SETTLE_MS);
    return () => clearTimeout(timer);
  }, [head?.id]);
  useEffect(() => {
    if (!head) return;
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [head?.id]);

  const answer = async (choice: ApprovalChoice) => {
    if (!head) return;
    try {
      await answerApproval(head.id, choice);
      setWaiting((list) => list.filter((x) => x.id !== head.id));
    } catch (err) {
      setError(errorText(t, err));
    }
  };
  const secondsLeft = head ? Math.max(0, Math.round((head.expiresAt - now) / 1000)) : 0;
  return (
    <dialog
      ref={dialog}
      class="approval"
      aria-labelledby="approval-title"
      aria-describedby="approval-question"
      // Escape would hide the question without an answer: the tool would wait until it times out.
      onCancel={(e) => e.preventDefault()}
    >
      {head && (
        <div class="stack">
          <h2 id="approval-title">{t.approvalAsks.replace("{plugin}", head.plugin)}</h2>
          <pre id="approval-question" class="approval-question" translate={false}>
            {head.question}
          </pre>
          <p class="hint">
            {t.approvalTimeLeft.replace("{s}", String(secondsLeft))}
            {waiting.length > 1 ? ` · ${t.approvalMore.replace("{n}", String(waiting.length - 1))}` : ""}
          </p>
          {error && (
            <p class="error" role="alert">
              {error}
            </p>
          )}
          <div class="row">
            {head.options.map((choice) => (
              <button
                key={choice}
                type="button"
                class={choice === "deny" ? "danger" : undefined}
                disabled={!settled}
                onClick={() => void answer(choice)}
              >
                {t[CHOICE_LABEL[choice]]}
              </button>
            ))}
          </div>
        </div>
      )}
    </dialog>
  );
}
