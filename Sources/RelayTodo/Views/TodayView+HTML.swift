extension TodayView {
    /// The whole view: one HTML document with its script and style inline and nothing fetched, so the
    /// host's default CSP (no `_meta.ui.csp`) is enough and no host warns about outside domains. It
    /// speaks the MCP Apps host protocol over `postMessage` (ext-apps `specification/2026-01-26/apps.mdx`):
    /// `ui/initialize`, then `ui/notifications/initialized`; it renders `ui/notifications/tool-result`
    /// (`list_todos`'s `structuredContent`, its `quietHours` as a note and a tag on an alarm inside them,
    /// and `_meta["mustdo/connection"].write` for the buttons),
    /// applies the host context (theme, `styles.variables`, `locale`, `timeZone`), reports its size
    /// with `ui/notifications/size-changed`, and sends `tools/call` (`complete_todo`, `snooze_todo`)
    /// through the host. Data goes into the page as text nodes only; nothing is kept in browser storage.
    /// The protocol, the clock, a repeat's rule and the buttons' calls are `AppViews.script`, shared with
    /// `WrittenView.html`; this document holds what only Today shows.
    static let html = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>MustDo — Today</title>
        <style>
        \#(AppViews.style)
        h1{font-size:17px;margin:0 0 4px}
        .note{color:var(--fg2);font-size:13px;margin:0 0 8px}
        ul{list-style:none;margin:0;padding:0}
        li{border:1px solid var(--line);border-radius:var(--radius);padding:10px;margin:0 0 8px;background:var(--bg2)}
        .row{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
        .time{font-variant-numeric:tabular-nums;font-weight:600;min-width:3.2em}
        .title{flex:1 1 12em;overflow-wrap:anywhere}
        .tag.overdue{color:var(--accent);border-color:var(--accent)}
        .done .title{text-decoration:line-through;color:var(--fg2)}
        .actions{display:flex;gap:6px;margin-top:8px;flex-wrap:wrap}
        </style>
        </head>
        <body>
        <main>
        <h1 id="heading">Today</h1>
        <p class="note" id="zone" hidden></p>
        <p class="note" id="quiet" hidden></p>
        <p class="note" id="readonly" hidden></p>
        <p class="sr" id="status" role="status" aria-live="polite"></p>
        <ul id="list" aria-labelledby="heading"></ul>
        <p class="note" id="empty" hidden></p>
        </main>
        <script>
        (function () {
          "use strict";
          var TEXT = {
            en: {today: "Today", day: "Alarms on ", empty: "No alarms on this day.", done: "Done", m10: "10 min", h1: "1 h",
              tomorrow: "Tomorrow", overdue: "overdue", snoozed: "snoozed", repeats: "repeats", finished: "done", skipped: "skipped",
              zone: "Times are on your MustDo clock ({z}); this device is on {h}.",
              quiet: "Quiet hours {s}–{e}: no alarm rings then; a time asked inside them rings at {e}.", quietTag: "quiet hours", readonly: "This connection can only read: no buttons.",
              working: "Working…", failed: "That did not work: ", loading: "Waiting for your to-dos…",
              labelDone: "Mark {t} done", labelM10: "Snooze {t} for 10 minutes", labelH1: "Snooze {t} for 1 hour", labelTomorrow: "Move {t} to tomorrow"},
            ja: {today: "今日", day: "アラーム ", empty: "この日のアラームはありません。", done: "完了", m10: "10分", h1: "1時間",
              tomorrow: "明日", overdue: "期限切れ", snoozed: "スヌーズ中", repeats: "繰り返し", finished: "完了済み", skipped: "スキップ",
              zone: "時刻は MustDo の時計（{z}）です。この端末は {h} です。",
              quiet: "おやすみ時間 {s}〜{e}：この間はアラームが鳴りません。この間の時刻は {e} に鳴ります。", quietTag: "おやすみ時間", readonly: "この接続は読み取り専用です（ボタンなし）。",
              working: "処理中…", failed: "できませんでした: ", loading: "ToDo を待っています…",
              labelDone: "{t} を完了にする", labelM10: "{t} を10分スヌーズ", labelH1: "{t} を1時間スヌーズ", labelTomorrow: "{t} を明日に"}
          };
          var state = {lang: "en", hostZone: null, zone: null, date: null, items: [], repeating: [], quiet: null, write: false, busy: false, args: {}};
        \#(AppViews.script)

          function entries() {
            var out = [], now = Date.now();
            state.items.forEach(function (todo) {
              if (!todo.due && !todo.snoozedUntil) return;
              var ring = Date.parse(todo.snoozedUntil || todo.due);
              out.push({todo: todo, ring: ring, done: todo.status !== "pending", snoozed: !!todo.snoozedUntil,
                overdue: todo.status === "pending" && ring < now, repeat: false});
            });
            state.repeating.forEach(function (todo) {
              var occ = (todo.occurrences || []).filter(function (o) { return o.date === state.date; })[0];
              if (!occ && !repeatsOn(todo, state.date)) return;
              var wall = parts(Date.parse(todo.due), todo.timeZone).time;
              var ring = occ && occ.snoozedUntil ? Date.parse(occ.snoozedUntil) : instant(state.date, wall, todo.timeZone);
              var st = occ ? occ.state : "pending";
              out.push({todo: todo, ring: ring, done: st === "done" || st === "skipped", state: st, snoozed: st === "snoozed",
                overdue: (st === "pending" || st === "snoozed") && ring < now, repeat: true});
            });
            out.sort(function (a, b) { return a.ring - b.ring; });
            return out;
          }
          // Whether a wall-clock time is inside the quiet hours (which may wrap midnight), as the relay reads them.
          function quietAt(time) {
            var q = state.quiet; if (!q) return false;
            return q.start < q.end ? time >= q.start && time < q.end : time >= q.start || time < q.end;
          }
          function render() {
            document.documentElement.lang = state.lang;
            var heading = document.getElementById("heading");
            heading.textContent = state.date ? t("day") + state.date : t("today");
            var zone = document.getElementById("zone");
            zone.hidden = !(state.zone && state.hostZone && state.zone !== state.hostZone);
            zone.textContent = fill(t("zone"), {z: state.zone, h: state.hostZone});
            var quiet = document.getElementById("quiet");
            quiet.hidden = !(state.quiet && state.date);
            if (state.quiet) quiet.textContent = fill(t("quiet"), {s: state.quiet.start, e: state.quiet.end});
            var ro = document.getElementById("readonly");
            ro.hidden = state.write || !state.date;
            ro.textContent = t("readonly");
            var list = document.getElementById("list");
            list.textContent = "";
            var all = state.date ? entries() : [];
            all.forEach(function (e) {
              var li = el("li", e.done ? "done" : "");
              li.setAttribute("data-id", e.todo.id);
              var row = el("div", "row");
              var at = parts(e.ring, state.zone);
              row.appendChild(el("span", "time", (at.date !== state.date ? at.date.slice(5).replace("-", "/") + " " : "") + at.time));
              row.appendChild(el("span", "title", e.todo.title));
              if (e.repeat) row.appendChild(el("span", "tag", t("repeats")));
              if (e.overdue) row.appendChild(el("span", "tag overdue", t("overdue")));
              if (e.snoozed) row.appendChild(el("span", "tag", t("snoozed")));
              if (!e.done && quietAt(at.time)) row.appendChild(el("span", "tag quiet", t("quietTag")));
              if (e.done) row.appendChild(el("span", "tag", e.state === "skipped" ? t("skipped") : t("finished")));
              li.appendChild(row);
              if (state.write && !e.done) {
                var actions = el("div", "actions");
                actions.setAttribute("role", "group");
                actions.setAttribute("aria-label", e.todo.title);
                ALARM.forEach(function (b) {
                  actions.appendChild(button(b[0], t(b[0]), fill(t(b[1]), {t: e.todo.title}), function () {
                    alarm(b[0], e.todo.id, e.ring, e.repeat ? state.date : null);
                  }));
                });
                li.appendChild(actions);
              }
              list.appendChild(li);
            });
            var empty = document.getElementById("empty");
            empty.hidden = all.length > 0;
            empty.textContent = state.date ? t("empty") : t("loading");
            size();
          }
          // A write's result: its to-do (and occurrence) replace the one shown.
          function apply(s) {
            if (!s.todo) return;
            if (s.todo.repeat) {
              state.repeating = state.repeating.map(function (r) {
                if (r.id !== s.todo.id) return r;
                var occ = (r.occurrences || []).filter(function (o) { return !s.occurrence || o.date !== s.occurrence.date; });
                if (s.occurrence) occ.push(s.occurrence);
                var copy = Object.assign({}, s.todo); copy.occurrences = occ; return copy;
              });
            } else {
              state.items = state.items.map(function (i) { return i.id === s.todo.id ? s.todo : i; });
            }
          }
          function result(params) {
            var s = params && params.structuredContent;
            if (!s || !Array.isArray(s.items)) return;
            var meta = params._meta && params._meta["mustdo/connection"];
            state.write = !!(meta && meta.write === true);
            state.zone = s.timeZone || state.zone || "UTC";
            state.items = s.items;
            state.repeating = s.repeating || [];
            var q = s.quietHours;
            state.quiet = q && typeof q.start === "string" && typeof q.end === "string" ? {start: q.start, end: q.end} : null;
            state.date = state.args.date || state.args.from || parts(Date.now(), state.zone).date;
            render();
          }
          start("MustDo Today", {result: result, answered: function (name, args, s) { apply(s); return s.message; }});
        })();
        </script>
        </body>
        </html>
        """#
}
