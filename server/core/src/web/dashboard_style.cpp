// The dashboard stylesheet (/ui/app.css), kept in C++ so the binary serves it.
#include "dashboard_assets.hpp"

namespace yuzu::web {

namespace {

constexpr char kStylesheet[] = R"css(
/* Yuzu dashboard stylesheet, served as /ui/app.css. */
:root {
  --ink: #1d2330;
  --muted: #5b6475;
  --line: #d8dce4;
  --panel: #ffffff;
  --page: #f3f5f8;
  --accent: #c77700;
  --accent-ink: #ffffff;
  --danger: #b42318;
  --ok: #067647;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
  color: var(--ink);
  background: var(--page);
}
[hidden] { display: none !important; }
body { margin: 0; }
.topbar {
  display: flex; align-items: center; gap: 1.5rem;
  padding: 0.6rem 1.5rem; background: var(--ink); color: #fff;
}
.topbar .brand { font-weight: 700; letter-spacing: 0.04em; color: #ffc14d; }
.topbar nav a { color: #fff; text-decoration: none; }
.topbar nav a:hover { text-decoration: underline; }
.topbar .user { margin-left: auto; color: #d5d9e2; }
.topbar .logout { margin: 0; }
main { max-width: 72rem; margin: 1.5rem auto; padding: 0 1rem; }
h1 { font-size: 1.4rem; margin: 0 0 1rem; }
h2 { font-size: 1.15rem; margin: 0 0 0.75rem; }
.panel {
  background: var(--panel); border: 1px solid var(--line); border-radius: 6px;
  padding: 1.25rem; margin-bottom: 1.25rem;
}
.panel.narrow { max-width: 24rem; margin: 3rem auto; }
.muted { color: var(--muted); }
label { display: block; font-weight: 600; margin: 0.75rem 0 0.25rem; }
input[type="text"], input[type="password"], input:not([type]) {
  box-sizing: border-box; width: 100%; padding: 0.45rem 0.55rem;
  border: 1px solid var(--line); border-radius: 4px; font: inherit;
}
input.code { width: 8rem; font-family: ui-monospace, monospace; letter-spacing: 0.15em; }
button {
  font: inherit; padding: 0.4rem 0.9rem; border-radius: 4px; cursor: pointer;
  border: 1px solid var(--line); background: #fff; color: var(--ink);
}
button[type="submit"], button.approve { background: var(--accent); border-color: var(--accent); color: var(--accent-ink); }
button.reject { color: var(--danger); border-color: var(--danger); }
button:disabled { opacity: 0.5; cursor: not-allowed; }
.topbar button { background: transparent; color: #fff; border-color: #5b6475; }
form .actions { margin-top: 1rem; display: flex; gap: 0.5rem; }
.error { color: var(--danger); font-weight: 600; white-space: pre-wrap; }
.status { color: var(--ok); font-weight: 600; }
table { width: 100%; border-collapse: collapse; }
th, td { text-align: left; vertical-align: top; padding: 0.55rem; border-bottom: 1px solid var(--line); }
th { font-size: 0.85rem; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); }
td.decide { white-space: nowrap; }
td.decide button { margin-right: 0.35rem; }
pre.args {
  margin: 0; max-height: 16rem; max-width: 36rem; overflow: auto; padding: 0.5rem;
  background: #f6f7f9; border: 1px solid var(--line); border-radius: 4px;
  font-size: 0.85rem; white-space: pre-wrap; word-break: break-word;
}
code.secret { font-size: 0.95rem; word-break: break-all; }
dialog { border: 1px solid var(--line); border-radius: 6px; padding: 1.25rem; max-width: 28rem; }
dialog::backdrop { background: rgba(29, 35, 48, 0.45); }
)css";

}  // namespace

std::string_view dashboard_stylesheet() {
    return {kStylesheet, sizeof kStylesheet - 1};
}

}  // namespace yuzu::web
