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
    static let html = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>MustDo — Today</title>
        <style>
        :root{color-scheme:light dark;--bg:var(--color-background-primary,#ffffff);--bg2:var(--color-background-secondary,#f3f4f6);
        --fg:var(--color-text-primary,#111827);--fg2:var(--color-text-secondary,#4b5563);--line:var(--color-border-primary,#d1d5db);
        --accent:#b42318;--radius:var(--border-radius-md,10px);font-family:var(--font-sans,system-ui,-apple-system,"Hiragino Sans",sans-serif)}
        :root[data-theme=dark]{--bg:var(--color-background-primary,#111827);--bg2:var(--color-background-secondary,#1f2937);
        --fg:var(--color-text-primary,#f9fafb);--fg2:var(--color-text-secondary,#d1d5db);--line:var(--color-border-primary,#374151);--accent:#fda29b}
        body{margin:0;background:var(--bg);color:var(--fg);font-size:15px;line-height:1.4}
        main{padding:12px;max-width:720px}
        h1{font-size:17px;margin:0 0 4px}
        .note{color:var(--fg2);font-size:13px;margin:0 0 8px}
        ul{list-style:none;margin:0;padding:0}
        li{border:1px solid var(--line);border-radius:var(--radius);padding:10px;margin:0 0 8px;background:var(--bg2)}
        .row{display:flex;gap:8px;align-items:baseline;flex-wrap:wrap}
        .time{font-variant-numeric:tabular-nums;font-weight:600;min-width:3.2em}
        .title{flex:1 1 12em;overflow-wrap:anywhere}
        .tag{font-size:12px;border:1px solid var(--line);border-radius:999px;padding:0 6px;color:var(--fg2)}
        .tag.overdue{color:var(--accent);border-color:var(--accent)}
        .done .title{text-decoration:line-through;color:var(--fg2)}
        .actions{display:flex;gap:6px;margin-top:8px;flex-wrap:wrap}
        button{font:inherit;font-size:14px;min-height:36px;min-width:44px;padding:4px 12px;border-radius:var(--radius);
        border:1px solid var(--line);background:var(--bg);color:var(--fg);cursor:pointer}
        button:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
        button[disabled]{opacity:.5;cursor:default}
        .sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
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
          var nextId = 1, pending = {};
          function t(key) { return (TEXT[state.lang] || TEXT.en)[key]; }
          function post(message) { window.parent.postMessage(message, "*"); }
          function request(method, params) {
            var id = nextId++;
            post({jsonrpc: "2.0", id: id, method: method, params: params});
            return new Promise(function (resolve, reject) { pending[id] = {resolve: resolve, reject: reject}; });
          }
          function notify(method, params) { post({jsonrpc: "2.0", method: method, params: params}); }

          // Wall-clock parts of an instant in a zone.
          function parts(ms, zone) {
            var f = new Intl.DateTimeFormat("en-US", {timeZone: zone, hourCycle: "h23", year: "numeric", month: "2-digit",
              day: "2-digit", hour: "2-digit", minute: "2-digit"});
            var p = {};
            f.formatToParts(new Date(ms)).forEach(function (x) { p[x.type] = x.value; });
            return {date: p.year + "-" + p.month + "-" + p.day, time: p.hour + ":" + p.minute};
          }
          // The instant of a wall-clock date and time in a zone (two passes over the zone's offset).
          function instant(date, time, zone) {
            var d = date.split("-").map(Number), h = time.split(":").map(Number);
            var guess = Date.UTC(d[0], d[1] - 1, d[2], h[0], h[1]);
            for (var i = 0; i < 2; i++) {
              var p = parts(guess, zone), pd = p.date.split("-").map(Number), ph = p.time.split(":").map(Number);
              var shown = Date.UTC(pd[0], pd[1] - 1, pd[2], ph[0], ph[1]);
              guess += Date.UTC(d[0], d[1] - 1, d[2], h[0], h[1]) - shown;
            }
            return guess;
          }
          function addDays(date, n) {
            var d = date.split("-").map(Number), u = new Date(Date.UTC(d[0], d[1] - 1, d[2] + n));
            return u.toISOString().slice(0, 10);
          }
          function dayNumber(date) { var d = date.split("-").map(Number); return Math.round(Date.UTC(d[0], d[1] - 1, d[2]) / 864e5); }
          // Whether a repeat rings on `date` (its start is due's day on its own clock); the tools decide the rest.
          function repeatsOn(todo, date) {
            var r = todo.repeat; if (!r || !todo.due) return false;
            var start = parts(Date.parse(todo.due), todo.timeZone).date;
            if (date < start) return false;
            if (r.end && r.end.kind === "until" && r.end.until && date > r.end.until) return false;
            var n = r.interval || 1, days = dayNumber(date) - dayNumber(start);
            var wd = (new Date(dayNumber(date) * 864e5).getUTCDay()) + 1;
            if (r.kind === "daily") return days % n === 0;
            if (r.kind === "weekly") {
              var list = r.weekdays && r.weekdays.length ? r.weekdays : [(new Date(dayNumber(start) * 864e5).getUTCDay()) + 1];
              var weeks = Math.floor((dayNumber(date) - (dayNumber(start) - (new Date(dayNumber(start) * 864e5).getUTCDay()))) / 7);
              return list.indexOf(wd) >= 0 && weeks % n === 0;
            }
            var sy = +start.slice(0, 4), sm = +start.slice(5, 7), y = +date.slice(0, 4), m = +date.slice(5, 7);
            if (r.kind === "monthly") {
              var months = (y - sy) * 12 + (m - sm);
              if (months % n !== 0) return false;
              var last = new Date(Date.UTC(y, m, 0)).getUTCDate(), dom = +date.slice(8, 10);
              if (r.monthly && r.monthly.mode === "weekdayOrdinal") {
                var k = r.monthly.ordinal;
                return wd === r.monthly.weekday && (k === -1 ? dom + 7 > last : Math.ceil(dom / 7) === k);
              }
              var want = +start.slice(8, 10);
              return dom === Math.min(want, last);
            }
            // Yearly on the start's month and day; 29 February rings on the 28th in other years, as the relay's schedule.
            if (r.kind === "yearly") return (y - sy) % n === 0 && m === sm
              && +date.slice(8, 10) === Math.min(+start.slice(8, 10), new Date(Date.UTC(y, m, 0)).getUTCDate());
            return false;
          }
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
          function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; }
          function fill(s, v) { return s.replace(/\{([a-z])\}/g, function (_, k) { return v[k] != null ? String(v[k]) : ""; }); }
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
                [["done", "labelDone"], ["m10", "labelM10"], ["h1", "labelH1"], ["tomorrow", "labelTomorrow"]].forEach(function (b) {
                  var button = el("button", null, t(b[0]));
                  button.type = "button";
                  button.setAttribute("data-action", b[0]);
                  button.setAttribute("aria-label", fill(t(b[1]), {t: e.todo.title}));
                  button.disabled = state.busy;
                  button.addEventListener("click", function () { act(b[0], e); });
                  actions.appendChild(button);
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
          function wall(ms) { var p = parts(ms, state.zone); return p.date + "T" + p.time; }
          function act(action, e) {
            var args = {id: e.todo.id}, name = "snooze_todo";
            if (e.repeat) args.occurrenceDate = state.date;
            var base = Math.max(Date.now(), e.ring);
            if (action === "done") name = "complete_todo";
            else if (action === "m10") args.until = wall(Math.ceil((base + 10 * 6e4) / 6e4) * 6e4);
            else if (action === "h1") args.until = wall(Math.ceil((base + 60 * 6e4) / 6e4) * 6e4);
            else { var p = parts(e.ring, state.zone); args.until = addDays(p.date, 1) + "T" + p.time; }
            state.busy = true; say(t("working")); render();
            request("tools/call", {name: name, arguments: args}).then(function (result) {
              state.busy = false;
              var s = result && result.structuredContent;
              if (!result || result.isError || !s) {
                var text = result && result.content && result.content[0] ? result.content[0].text : "";
                say(t("failed") + text); render(); return;
              }
              apply(s);
              say(s.message || "");
              render();
            }, function (error) { state.busy = false; say(t("failed") + (error && error.message || "")); render(); });
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
          function say(text) { document.getElementById("status").textContent = text; }
          function context(c) {
            if (!c) return;
            if (c.theme) document.documentElement.setAttribute("data-theme", c.theme === "dark" ? "dark" : "light");
            var vars = c.styles && c.styles.variables;
            if (vars) Object.keys(vars).forEach(function (k) { if (/^--[a-z0-9-]+$/.test(k) && vars[k]) document.documentElement.style.setProperty(k, String(vars[k])); });
            if (typeof c.locale === "string") state.lang = /^ja\b/i.test(c.locale) ? "ja" : "en";
            if (typeof c.timeZone === "string") state.hostZone = c.timeZone;
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
          var lastSize = "";
          function size() {
            var w = Math.ceil(document.documentElement.scrollWidth), h = Math.ceil(document.documentElement.scrollHeight);
            if (w + "x" + h === lastSize) return;
            lastSize = w + "x" + h;
            notify("ui/notifications/size-changed", {width: w, height: h});
          }
          window.addEventListener("message", function (event) {
            if (event.source !== window.parent) return;
            var m = event.data;
            if (!m || m.jsonrpc !== "2.0") return;
            if (m.method === undefined && m.id != null && pending[m.id]) {
              var p = pending[m.id]; delete pending[m.id];
              if (m.error) p.reject(m.error); else p.resolve(m.result);
              return;
            }
            switch (m.method) {
              case "ui/notifications/tool-input": state.args = (m.params && m.params.arguments) || {}; break;
              case "ui/notifications/tool-result": result(m.params); break;
              case "ui/notifications/host-context-changed": context(m.params); render(); break;
              case "ui/resource-teardown": post({jsonrpc: "2.0", id: m.id, result: {}}); break;
              case "ping": post({jsonrpc: "2.0", id: m.id, result: {}}); break;
              default: if (m.id != null && m.method) post({jsonrpc: "2.0", id: m.id, error: {code: -32601, message: "Method not found"}});
            }
          });
          if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);
          render();
          request("ui/initialize", {protocolVersion: "2026-01-26", appInfo: {name: "MustDo Today", version: "1"},
            appCapabilities: {availableDisplayModes: ["inline"]}}).then(function (r) {
            context(r && r.hostContext);
            notify("ui/notifications/initialized", {});
            render();
          });
        })();
        </script>
        </body>
        </html>
        """#
}
