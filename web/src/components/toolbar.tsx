/**
 * The header's controls, on every view (the login view too): language, theme and, when logged in,
 * notifications (where the browser has them) and log out.
 */
import { useState } from "preact/hooks";
import type { Lang, Messages } from "../i18n";
import { notifyState, turnOff, turnOn } from "../notify";
import type { Theme } from "../theme";

interface Props {
  t: Messages;
  lang: Lang;
  theme: Theme;
  onLang: (lang: Lang) => void;
  onTheme: (theme: Theme) => void;
  onLogout?: () => void;
}

export function Toolbar({ t, lang, theme, onLang, onTheme, onLogout }: Props) {
  return (
    <div class="toolbar">
      <label for="pick-lang">{t.language}</label>
      <select id="pick-lang" value={lang} onChange={(e) => onLang(e.currentTarget.value as Lang)}>
        <option value="en" lang="en" translate={false}>
          English
        </option>
        <option value="zh" lang="zh-CN" translate={false}>
          中文
        </option>
      </select>
      <label for="pick-theme">{t.theme}</label>
      <select id="pick-theme" value={theme} onChange={(e) => onTheme(e.currentTarget.value as Theme)}>
        <option value="light">{t.themeLight}</option>
        <option value="dark">{t.themeDark}</option>
      </select>
      {onLogout && <NotifyToggle t={t} />}
      {onLogout && (
        <button type="button" onClick={onLogout}>
          {t.logout}
        </button>
      )}
    </div>
  );
}

/** Turns notifications on (the browser asks the first time) or off; says so when the browser blocks them. */
function NotifyToggle({ t }: { t: Messages }) {
  const [state, setState] = useState(notifyState);
  if (state === "unsupported") return null;
  if (state === "blocked") return <span class="hint">{t.notifyBlocked}</span>;
  const on = state === "on";
  return (
    <button
      type="button"
      aria-pressed={on}
      title={t.notifyHint}
      onClick={async () => setState(on ? turnOff() : await turnOn())}
    >
      {on ? t.notifyIsOn : t.notifyTurnOn}
    </button>
  );
}
