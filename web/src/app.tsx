/**
 * The page: while the session is unknown a loading line, without a session the login view, with one the
 * shell — a compact header, the sections as a side bar on a wide screen (room for a dozen) or behind a
 * Menu button on a phone (the language, theme and log out controls move into that menu too), and the
 * selected section's panel. The selected section lives in the URL's hash (#kernel), so a reload or a
 * shared link opens the same one.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { ApiError, loadSession, loginInfo, logout, type Session, setUnauthorizedHandler } from "./api";
import { ApprovalDialog } from "./components/approval-dialog";
import { LoginView } from "./components/login";
import { ErrorLine, Loading } from "./components/status";
import { TabList } from "./components/tab-list";
import { Toolbar } from "./components/toolbar";
import { useMedia } from "./components/use-media";
import { errorText } from "./error-text";
import { events } from "./events";
import { applyLang, I18n, initialLang, type Lang, MESSAGES, useT } from "./i18n";
import { loadInbox } from "./reminders-api";
import { ChatTab } from "./tabs/chat";
import { OverviewTab } from "./tabs/overview";
import { applyTheme, initialTheme, type Theme } from "./theme";

const TAB_KEYS = [
  "overview",
  "chat",
  "reminders",
  "workspace",
  "plugins",
  "memory",
  "knowledge",
  "settings",
  "kernel",
] as const;
type TabKey = (typeof TAB_KEYS)[number];
const LABELS = {
  overview: "tabOverview",
  chat: "tabChat",
  reminders: "tabReminders",
  workspace: "tabWorkspace",
  plugins: "tabPlugins",
  memory: "tabMemory",
  knowledge: "tabKnowledge",
  settings: "tabSettings",
  kernel: "tabKernel",
} as const;

/** Below this width (styles.css agrees) the sections hide behind the Menu button. */
const NARROW = "(max-width: 47.99rem)";

function tabFromHash(): TabKey {
  const key = location.hash.replace(/^#\/?/, "");
  return (TAB_KEYS as readonly string[]).includes(key) ? (key as TabKey) : "overview";
}

type SessionState = { kind: "unknown" } | { kind: "out"; error?: string } | { kind: "in"; session: Session };

export function App() {
  const [lang, setLang] = useState<Lang>(initialLang);
  const [theme, setTheme] = useState<Theme>(initialTheme);
  const [state, setState] = useState<SessionState>({ kind: "unknown" });
  const [tab, setTab] = useState<TabKey>(tabFromHash);
  const narrow = useMedia(NARROW);
  const [menuOpen, setMenuOpen] = useState(false);
  /** Messages the inbox kept while no dashboard was open: the Reminders section's badge until it is opened. */
  const [unread, setUnread] = useState(0);
  const t = MESSAGES[lang];

  useEffect(() => applyLang(lang, false), [lang]);
  useEffect(() => applyTheme(theme, false), [theme]);
  useEffect(() => {
    setUnauthorizedHandler(() => {
      events.close();
      setState({ kind: "out" });
    });
    // On the login page the open login info comes first, so a browser without a session sees no 401.
    const session =
      location.pathname === "/login" ? loginInfo().then((l) => (l.loggedIn ? loadSession() : null)) : loadSession();
    session
      .then((s) => setState(s ? { kind: "in", session: s } : { kind: "out" }))
      .catch((err) =>
        setState({
          kind: "out",
          error: err instanceof ApiError && err.status === 401 ? undefined : errorText(MESSAGES[lang], err),
        }),
      );
    const onHash = () => setTab(tabFromHash());
    addEventListener("hashchange", onHash);
    return () => removeEventListener("hashchange", onHash);
  }, []);
  useEffect(() => {
    // The login URL is only a way in: once logged in, the address bar shows the dashboard's own.
    if (state.kind === "in" && location.pathname !== "/") history.replaceState(null, "", `/${location.hash}`);
    if (state.kind !== "in") return;
    // Counted at login, and again whenever the page may have been away (a reconnect) or is told a message
    // went to the inbox because no dashboard was connected at that moment.
    const count = () =>
      void loadInbox()
        .then(({ messages }) => setUnread(messages.length))
        .catch(() => undefined);
    count();
    const offMissed = events.onMissed(count);
    const offKept = events.on("agent_output", (e) => {
      if (e.payload.kept === true) count();
    });
    return () => {
      offMissed();
      offKept();
    };
  }, [state.kind]);

  const pickLang = (next: Lang) => {
    setLang(next);
    applyLang(next, true);
  };
  const pickTheme = (next: Theme) => {
    setTheme(next);
    applyTheme(next, true);
  };
  const selectTab = (key: TabKey) => {
    setTab(key);
    history.replaceState(null, "", `#${key}`);
  };
  const menuButton = useRef<HTMLButtonElement>(null);
  // On a phone a section picked (not one moved to with the arrow keys) closes the menu, and the reader
  // lands on the section; Escape closes it and goes back to the Menu button.
  const closeMenu = (focus: "main" | "button") => {
    setMenuOpen(false);
    requestAnimationFrame(() => (focus === "main" ? document.getElementById("main") : menuButton.current)?.focus());
  };
  // One listener for the page's life; it reads whether the menu is open at the moment of the key.
  const open = useRef(menuOpen);
  open.current = menuOpen;
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape" && open.current) closeMenu("button");
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, []);
  const doLogout = async () => {
    await logout().catch(() => undefined);
    events.close();
    setState({ kind: "out" });
  };

  const toolbar = (
    <Toolbar
      t={t}
      lang={lang}
      theme={theme}
      onLang={pickLang}
      onTheme={pickTheme}
      onLogout={state.kind === "in" ? doLogout : undefined}
    />
  );

  return (
    <I18n.Provider value={t}>
      <button type="button" class="skip" onClick={() => document.getElementById("main")?.focus()}>
        {t.skipToContent}
      </button>
      <header class="top">
        {state.kind === "in" && narrow && (
          <button
            ref={menuButton}
            type="button"
            class="menu-button"
            aria-expanded={menuOpen}
            aria-controls="sections"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            {t.menu}
          </button>
        )}
        <span class="brand">{t.appName}</span>
        {!(state.kind === "in" && narrow) && toolbar}
      </header>
      {state.kind === "unknown" && (
        <main id="main" tabIndex={-1}>
          <Loading />
        </main>
      )}
      {state.kind === "out" && (
        <LoginView error={state.error} onLogin={(session) => setState({ kind: "in", session })} />
      )}
      {state.kind === "in" && (
        <div class="shell">
          <nav id="sections" class="sections" aria-label={t.sections} hidden={narrow && !menuOpen}>
            <TabList
              tabs={TAB_KEYS.map((key) => ({
                key,
                label: t[LABELS[key]],
                ...(key === "reminders"
                  ? { badge: { count: unread, label: t.unreadCount.replace("{n}", String(unread)) } }
                  : {}),
              }))}
              selected={tab}
              label={t.sections}
              onSelect={selectTab}
              onActivate={() => narrow && closeMenu("main")}
              vertical
            />
            {narrow && toolbar}
          </nav>
          {/* Under the open phone menu the page is out of reach, for Tab and screen readers alike. */}
          <main id="main" tabIndex={-1} inert={narrow && menuOpen}>
            <section id={`panel-${tab}`} role="tabpanel" aria-labelledby={`tab-${tab}`} class="panel">
              <Panel tab={tab} onRead={() => setUnread(0)} />
            </section>
          </main>
          <ApprovalDialog />
        </div>
      )}
    </I18n.Provider>
  );
}

/** `onRead`: the section showed the kept messages (Reminders), so the badge clears. */
type View = (props: { onRead?: () => void }) => preact.JSX.Element;

/** In the first view's bundle: the section a visit opens on, and the one most used next. */
const EAGER: Partial<Record<TabKey, View>> = { overview: OverviewTab, chat: ChatTab };
/** The other sections load when first opened, so the first view stays small as sections are added. */
const LAZY: Partial<Record<TabKey, () => Promise<View>>> = {
  plugins: () => import("./tabs/plugins").then((m) => m.PluginsTab),
  memory: () => import("./tabs/memory").then((m) => m.MemoryTab),
  knowledge: () => import("./tabs/knowledge").then((m) => m.KnowledgeTab),
  settings: () => import("./tabs/settings").then((m) => m.SettingsTab),
  kernel: () => import("./tabs/kernel").then((m) => m.KernelTab),
  reminders: () => import("./tabs/reminders").then((m) => m.RemindersTab),
  workspace: () => import("./tabs/workspace").then((m) => m.WorkspaceTab),
};

function Panel({ tab, onRead }: { tab: TabKey; onRead: () => void }) {
  const t = useT();
  const eager = EAGER[tab];
  const [loaded, setLoaded] = useState<{ tab: TabKey; View?: View; error?: string } | null>(null);
  useEffect(() => {
    const load = LAZY[tab];
    if (!load) return;
    let live = true;
    load()
      .then((View) => live && setLoaded({ tab, View }))
      .catch((err: unknown) => live && setLoaded({ tab, error: errorText(t, err) }));
    return () => {
      live = false;
    };
  }, [tab, t]);
  if (eager) {
    const View = eager;
    return <View onRead={onRead} />;
  }
  if (loaded?.tab !== tab) return <Loading />;
  if (loaded.View) {
    const View = loaded.View;
    return <View onRead={onRead} />;
  }
  return <ErrorLine message={loaded.error ?? null} />;
}
