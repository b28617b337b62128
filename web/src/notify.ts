/**
 * Browser notifications for what happens while the dashboard's tab is hidden: a reply that finished, an
 * approval a tool asks (approval-dialog.tsx). Only after the user turned them on here and the
 * browser allowed them, and never for a tab in view. A click brings the tab back on the section named.
 */
import { readStorage, writeStorage } from "./i18n";

const STORAGE_KEY = "homeagent.notify";
/** Characters of the text a notification shows; the whole is in the tab. */
const BODY_CHARS = 200;

export type NotifyState = "unsupported" | "blocked" | "off" | "on";

export function notifyState(): NotifyState {
  if (typeof Notification === "undefined") return "unsupported";
  if (Notification.permission === "denied") return "blocked";
  return Notification.permission === "granted" && readStorage(STORAGE_KEY) === "on" ? "on" : "off";
}

/** Asks the browser (it shows its own prompt the first time); on only when it allows. */
export async function turnOn(): Promise<NotifyState> {
  if (typeof Notification === "undefined") return "unsupported";
  const permission = await Notification.requestPermission();
  if (permission === "granted") writeStorage(STORAGE_KEY, "on");
  return notifyState();
}

export function turnOff(): NotifyState {
  writeStorage(STORAGE_KEY, "off");
  return notifyState();
}

/** Shows a notification when the tab is hidden and notifications are on; `tag` replaces an older one of the same. */
export function notifyIfHidden(opts: { title: string; body: string; section: string; tag: string }): void {
  if (!document.hidden || notifyState() !== "on") return;
  const body = opts.body.length > BODY_CHARS ? `${opts.body.slice(0, BODY_CHARS)}…` : opts.body;
  let shown: Notification;
  try {
    shown = new Notification(opts.title, { body, tag: opts.tag });
  } catch {
    // Some browsers (Chrome on Android) allow notifications only through a service worker: then none.
    return;
  }
  shown.onclick = () => {
    window.focus();
    location.hash = `#${opts.section}`;
    shown.close();
  };
}
