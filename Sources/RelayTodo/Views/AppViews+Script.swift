extension AppViews {
    /// The style rules every view shares: the host's theme variables with light and dark fallbacks
    /// (ext-apps `specification/2026-01-26/apps.mdx`, "Theming"), the page, tags, the buttons and the
    /// screen-reader-only status line. A view's own rules follow it.
    static let style = #"""
        :root{color-scheme:light dark;--bg:var(--color-background-primary,#ffffff);--bg2:var(--color-background-secondary,#f3f4f6);
        --fg:var(--color-text-primary,#111827);--fg2:var(--color-text-secondary,#4b5563);--line:var(--color-border-primary,#d1d5db);
        --accent:#b42318;--radius:var(--border-radius-md,10px);font-family:var(--font-sans,system-ui,-apple-system,"Hiragino Sans",sans-serif)}
        :root[data-theme=dark]{--bg:var(--color-background-primary,#111827);--bg2:var(--color-background-secondary,#1f2937);
        --fg:var(--color-text-primary,#f9fafb);--fg2:var(--color-text-secondary,#d1d5db);--line:var(--color-border-primary,#374151);--accent:#fda29b}
        body{margin:0;background:var(--bg);color:var(--fg);font-size:15px;line-height:1.4}
        main{padding:12px;max-width:720px}
        .tag{font-size:12px;border:1px solid var(--line);border-radius:999px;padding:0 6px;color:var(--fg2)}
        button{font:inherit;font-size:14px;min-height:36px;min-width:44px;padding:4px 12px;border-radius:var(--radius);
        border:1px solid var(--line);background:var(--bg);color:var(--fg);cursor:pointer}
        button:focus-visible{outline:3px solid #2563eb;outline-offset:2px}
        button[disabled]{opacity:.5;cursor:default}
        .sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
        """#

    /// The script every view shares, placed inside the view's own function scope after the view's
    /// `TEXT` (its words, `en` and `ja`) and `state` (`lang`, `zone`, `hostZone`, `args`, `busy` and its
    /// own members), before its `render()`: the MCP Apps host protocol over `postMessage` (ext-apps
    /// `specification/2026-01-26/apps.mdx`: `ui/initialize`, then `ui/notifications/initialized`;
    /// `tool-input`, `tool-result`, `host-context-changed`, `ui/resource-teardown`, `ping`; size reports),
    /// wall-clock times on the person's MustDo clock, a repeat's rule read for one day, and the alarm's
    /// four buttons as `tools/call` through the host. The view calls `start(name, hooks)` last, with
    /// `hooks.result(params)` (a tool result from the host), `hooks.answered(name, args, structuredContent)`
    /// (the answer to a call the view made; returns the text to announce) and, if it reads more of the
    /// host context, `hooks.context(hostContext)`.
    static let script = #"""
          var nextId = 1, pending = {}, lastSize = "", hooks = {};
          function t(key) { var table = TEXT[state.lang] || TEXT.en; return table[key] != null ? table[key] : TEXT.en[key]; }
          function fill(s, v) { return s.replace(/\{([a-z])\}/g, function (_, k) { return v[k] != null ? String(v[k]) : ""; }); }
          function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text != null) e.textContent = text; return e; }
          function say(text) { document.getElementById("status").textContent = text; }
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
              guess += Date.UTC(d[0], d[1] - 1, d[2], h[0], h[1]) - Date.UTC(pd[0], pd[1] - 1, pd[2], ph[0], ph[1]);
            }
            return guess;
          }
          // An instant as the tools take a wall-clock time: YYYY-MM-DDTHH:mm on the person's clock.
          function wall(ms) { var p = parts(ms, state.zone); return p.date + "T" + p.time; }
          function addDays(date, n) {
            var d = date.split("-").map(Number);
            return new Date(Date.UTC(d[0], d[1] - 1, d[2] + n)).toISOString().slice(0, 10);
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
              if (((y - sy) * 12 + (m - sm)) % n !== 0) return false;
              var last = new Date(Date.UTC(y, m, 0)).getUTCDate(), dom = +date.slice(8, 10);
              if (r.monthly && r.monthly.mode === "weekdayOrdinal") {
                var k = r.monthly.ordinal;
                return wd === r.monthly.weekday && (k === -1 ? dom + 7 > last : Math.ceil(dom / 7) === k);
              }
              return dom === Math.min(+start.slice(8, 10), last);
            }
            // Yearly on the start's month and day; 29 February rings on the 28th in other years, as the relay's schedule.
            if (r.kind === "yearly") return (y - sy) % n === 0 && m === sm
              && +date.slice(8, 10) === Math.min(+start.slice(8, 10), new Date(Date.UTC(y, m, 0)).getUTCDate());
            return false;
          }

          // The alarm's four buttons, each [action, label key], with the MustDo app's meanings (docs/mcp-app.md).
          var ALARM = [["done", "labelDone"], ["m10", "labelM10"], ["h1", "labelH1"], ["tomorrow", "labelTomorrow"]];
          function button(action, text, label, onClick) {
            var b = el("button", null, text);
            b.type = "button";
            b.setAttribute("data-action", action);
            b.setAttribute("aria-label", label);
            b.disabled = state.busy;
            b.addEventListener("click", onClick);
            return b;
          }
          // An alarm button pressed for to-do `id` ringing at `ring` (a repeat's day as `occurrenceDate`):
          // done, or a snooze 10 minutes or 1 hour after the later of now and the ring (on a whole minute),
          // or to the same wall-clock time the next day.
          function alarm(action, id, ring, occurrenceDate) {
            var args = {id: id}, name = "snooze_todo";
            if (occurrenceDate) args.occurrenceDate = occurrenceDate;
            var base = Math.max(Date.now(), ring);
            if (action === "done") name = "complete_todo";
            else if (action === "m10") args.until = wall(Math.ceil((base + 10 * 6e4) / 6e4) * 6e4);
            else if (action === "h1") args.until = wall(Math.ceil((base + 60 * 6e4) / 6e4) * 6e4);
            else { var p = parts(ring, state.zone); args.until = addDays(p.date, 1) + "T" + p.time; }
            call(name, args);
          }
          // A tool called through the host; the buttons stay disabled until it answers.
          function call(name, args) {
            state.busy = true; say(t("working")); render();
            request("tools/call", {name: name, arguments: args}).then(function (result) {
              state.busy = false;
              var s = result && result.structuredContent;
              if (!result || result.isError || !s) {
                var text = result && result.content && result.content[0] ? result.content[0].text : "";
                say(t("failed") + text); render(); return;
              }
              say(hooks.answered(name, args, s) || "");
              render();
            }, function (error) { state.busy = false; say(t("failed") + (error && error.message || "")); render(); });
          }

          function context(c) {
            if (!c) return;
            if (c.theme) document.documentElement.setAttribute("data-theme", c.theme === "dark" ? "dark" : "light");
            var vars = c.styles && c.styles.variables;
            if (vars) Object.keys(vars).forEach(function (k) { if (/^--[a-z0-9-]+$/.test(k) && vars[k]) document.documentElement.style.setProperty(k, String(vars[k])); });
            if (typeof c.locale === "string") state.lang = /^ja\b/i.test(c.locale) ? "ja" : "en";
            if (typeof c.timeZone === "string") state.hostZone = c.timeZone;
            if (hooks.context) hooks.context(c);
          }
          function size() {
            var w = Math.ceil(document.documentElement.scrollWidth), h = Math.ceil(document.documentElement.scrollHeight);
            if (w + "x" + h === lastSize) return;
            lastSize = w + "x" + h;
            notify("ui/notifications/size-changed", {width: w, height: h});
          }
          function start(name, viewHooks) {
            hooks = viewHooks;
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
                case "ui/notifications/tool-result": hooks.result(m.params); break;
                case "ui/notifications/host-context-changed": context(m.params); render(); break;
                case "ui/resource-teardown": post({jsonrpc: "2.0", id: m.id, result: {}}); break;
                case "ping": post({jsonrpc: "2.0", id: m.id, result: {}}); break;
                default: if (m.id != null && m.method) post({jsonrpc: "2.0", id: m.id, error: {code: -32601, message: "Method not found"}});
              }
            });
            if (window.ResizeObserver) new ResizeObserver(size).observe(document.body);
            render();
            request("ui/initialize", {protocolVersion: "2026-01-26", appInfo: {name: name, version: "1"},
              appCapabilities: {availableDisplayModes: ["inline"]}}).then(function (r) {
              context(r && r.hostContext);
              notify("ui/notifications/initialized", {});
              render();
            });
          }
        """#
}
