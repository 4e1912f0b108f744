extension WrittenView {
    /// The whole view: one HTML document with its script and style inline and nothing fetched, so the
    /// host's default CSP is enough (as `TodayView.html`). It renders a write's `structuredContent`
    /// (`{timeZone, todo, occurrence?, snoozedUntil?, quietHoursAdjusted?, dueAligned?, notices?, message?,
    /// undo?}`) with `_meta["mustdo/connection"].write`: the to-do, when it will actually ring on the
    /// person's clock (a repeat's next day from its rule, as the Today view reads it), and what the relay
    /// did to the time asked for. Its buttons call `complete_todo` and `snooze_todo` with the Today
    /// view's meanings, and `undo {undo}` when the result has an `undo` token; each answer (itself a
    /// write's result) is then shown in place. Unknown members are ignored, so a host that re-runs a newer
    /// view on an older result still shows it. Data goes into the page as text nodes only; nothing is kept
    /// in browser storage. The host protocol, the clock, a repeat's rule and the buttons' calls are
    /// `AppViews.script`, as in `TodayView.html`.
    static let html = #"""
        <!DOCTYPE html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>MustDo — Just written</title>
        <style>
        \#(AppViews.style)
        h1{font-size:13px;font-weight:600;margin:0 0 6px;color:var(--fg2);text-transform:uppercase;letter-spacing:.04em}
        .card{border:1px solid var(--line);border-radius:var(--radius);padding:12px;background:var(--bg2)}
        .title{font-size:17px;font-weight:600;margin:0 0 6px;overflow-wrap:anywhere}
        .ring{display:flex;gap:10px;align-items:baseline;flex-wrap:wrap;margin:0 0 6px}
        .time{font-size:28px;font-weight:700;font-variant-numeric:tabular-nums}
        .time:empty{display:none}
        .when{color:var(--fg2)}
        .note{color:var(--fg2);font-size:13px;margin:0 0 6px}
        ul{margin:6px 0 0;padding:0 0 0 18px;font-size:14px}
        li{margin:0 0 4px}
        li.moved{color:var(--accent)}
        .actions{display:flex;gap:6px;margin-top:10px;flex-wrap:wrap}
        button.undo{margin-left:auto}
        </style>
        </head>
        <body>
        <main>
        <h1 id="heading">Saved</h1>
        <section class="card" id="card" aria-labelledby="title" hidden>
        <p class="title" id="title"></p>
        <p class="ring" id="ring"><span class="time" id="time"></span><span class="when" id="when"></span></p>
        <ul id="notes"></ul>
        <div class="actions" id="actions" role="group"></div>
        </section>
        <p class="note" id="zone" hidden></p>
        <p class="note" id="readonly" hidden></p>
        <p class="note" id="empty">Waiting for the result…</p>
        <p class="sr" id="status" role="status" aria-live="polite"></p>
        </main>
        <script>
        (function () {
          "use strict";
          var TEXT = {
            en: {add_todo: "Added", update_todo: "Updated", complete_todo: "Marked done", snooze_todo: "Snoozed", undo: "Undone",
              saved: "Saved", rings: "rings", ringsAgain: "rings again", next: "next alarm", noAlarm: "No alarm is set.",
              finished: "Done: nothing will ring.", skipped: "Skipped: nothing will ring.", deleted: "Deleted: nothing will ring.",
              occDone: "Done for {d}.", occSkipped: "Skipped on {d}.", repeats: "Repeats: {r}",
              past: "already past: it will not ring", allPast: "Every occurrence is already past: nothing will ring.",
              quiet: "You asked for {a}; that is in quiet hours, so it rings at {b}.",
              aligned: "The repeat's first day is {b}, the first day its rule lists (you asked for {a}).",
              gap: "{a} does not exist on that day (the clocks go forward), so it rings at {b}.",
              twice: "{a} happens twice on that day (the clocks go back): it rings the first time.",
              zone: "Times are on your MustDo clock ({z}); this device is on {h}.", readonly: "This connection can only read: no buttons.",
              done: "Done", m10: "10 min", h1: "1 h", tomorrow: "Tomorrow", undoButton: "Undo",
              labelDone: "Mark {t} done", labelM10: "Snooze {t} for 10 minutes", labelH1: "Snooze {t} for 1 hour",
              labelTomorrow: "Move {t} to tomorrow", labelUndo: "Undo this change to {t}",
              working: "Working…", failed: "That did not work: ", undone: "The change was undone.", loading: "Waiting for the result…",
              today: "today", tomorrowDay: "tomorrow"},
            ja: {add_todo: "追加しました", update_todo: "変更しました", complete_todo: "完了にしました", snooze_todo: "スヌーズしました", undo: "元に戻しました",
              saved: "保存しました", rings: "に鳴ります", ringsAgain: "にもう一度鳴ります", next: "次のアラーム", noAlarm: "アラームはありません。",
              finished: "完了済み：もう鳴りません。", skipped: "スキップ済み：もう鳴りません。", deleted: "削除済み：もう鳴りません。",
              occDone: "{d} の分を完了にしました。", occSkipped: "{d} の分をスキップしました。", repeats: "繰り返し：{r}",
              past: "すでに過ぎているため鳴りません", allPast: "繰り返しはすべて過ぎているため、もう鳴りません。",
              quiet: "{a} はおやすみ時間のため、{b} に鳴ります。",
              aligned: "繰り返しの最初の日は、ルールに合う {b} です（指定は {a}）。",
              gap: "{a} はその日には存在しない時刻（夏時間の開始）のため、{b} に鳴ります。",
              twice: "{a} はその日に2回ある時刻（夏時間の終了）です。1回目に鳴ります。",
              zone: "時刻は MustDo の時計（{z}）です。この端末は {h} です。", readonly: "この接続は読み取り専用です（ボタンなし）。",
              done: "完了", m10: "10分", h1: "1時間", tomorrow: "明日", undoButton: "元に戻す",
              labelDone: "{t} を完了にする", labelM10: "{t} を10分スヌーズ", labelH1: "{t} を1時間スヌーズ",
              labelTomorrow: "{t} を明日に", labelUndo: "{t} への変更を元に戻す",
              working: "処理中…", failed: "できませんでした: ", undone: "変更を元に戻しました。", loading: "結果を待っています…",
              today: "今日", tomorrowDay: "明日"}
          };
          var state = {lang: "en", hostZone: null, zone: "UTC", tool: null, args: {}, result: null, write: false, busy: false, undone: false};
        \#(AppViews.script)

          // When the written to-do rings next: {ring, day (the occurrence's date for a repeat), again} or
          // {none: reason}. A repeat's day after one marked done or skipped is read from its rule.
          function nextRing(s) {
            var todo = s.todo, occ = s.occurrence;
            if (todo.deletedAt) return {none: "deleted"};
            if (!todo.repeat) {
              if (todo.status === "done") return {none: "finished"};
              if (todo.status === "skipped") return {none: "skipped"};
              if (!todo.due && !todo.snoozedUntil) return {none: "noAlarm"};
              var at = Date.parse(todo.snoozedUntil || todo.due);
              return {ring: at, again: !!todo.snoozedUntil, past: at < Date.now()};
            }
            if (occ && occ.state === "snoozed" && occ.snoozedUntil) return {ring: Date.parse(occ.snoozedUntil), day: occ.date, again: true};
            if (!todo.due) return {none: "noAlarm"};
            // The relay says when no occurrence is left (it also counts end.count, which the rule's reading here does not).
            if ((Array.isArray(s.notices) ? s.notices : []).some(function (n) { return /Every occurrence/.test(n); })) return {none: "allPast"};
            var zone = todo.timeZone, at = parts(Date.parse(todo.due), zone).time, now = Date.now();
            var day = parts(Math.max(now, Date.parse(todo.due)), zone).date;
            if (occ && (occ.state === "done" || occ.state === "skipped") && occ.date >= day) day = addDays(occ.date, 1);
            for (var i = 0; i < 800; i++, day = addDays(day, 1)) {
              if (!repeatsOn(todo, day)) continue;
              var ring = instant(day, at, zone);
              if (ring >= now) return {ring: ring, day: day, again: false};
            }
            return {none: "allPast"};
          }
          function clock(ms) { return parts(ms, state.zone).time; }
          function dayText(ms) {
            var date = parts(ms, state.zone).date, today = parts(Date.now(), state.zone).date;
            var words = date === today ? t("today") + " " : date === addDays(today, 1) ? t("tomorrowDay") + " " : "";
            return words + new Intl.DateTimeFormat(state.lang === "ja" ? "ja-JP" : "en-US",
              {timeZone: state.zone, weekday: "short", month: "short", day: "numeric", year: "numeric"}).format(new Date(ms));
          }
          // The wall-clock time the call asked for (`due` or `until` as YYYY-MM-DDTHH:mm), if it gave one.
          function asked() {
            var v = state.args.until || state.args.due;
            var m = typeof v === "string" && /^\d{4}-\d{2}-\d{2}T(\d{2}:\d{2})$/.exec(v);
            return m ? m[1] : null;
          }
          function shortTime(iso) { var ms = Date.parse(iso); return isNaN(ms) ? String(iso) : parts(ms, state.zone).date.slice(5).replace("-", "/") + " " + clock(ms); }
          function notes(s, info) {
            var out = [];
            if (s.quietHoursAdjusted) out.push(["moved", fill(t("quiet"), {a: shortTime(s.quietHoursAdjusted.requested), b: shortTime(s.quietHoursAdjusted.actual)})]);
            if (s.dueAligned) out.push(["moved", fill(t("aligned"), {a: shortTime(s.dueAligned.requested), b: shortTime(s.dueAligned.actual)})]);
            (Array.isArray(s.notices) ? s.notices : []).forEach(function (notice) {
              var a = asked() || "";
              if (/does not exist/.test(notice)) out.push(["moved", fill(t("gap"), {a: a, b: info.ring != null ? clock(info.ring) : ""})]);
              else if (/happens twice/.test(notice)) out.push(["moved", fill(t("twice"), {a: a})]);
              else if (/already past/.test(notice)) return;  // said under the time, in the person's language
              else out.push(["", String(notice)]);
            });
            if (s.occurrence && s.occurrence.state === "done") out.push(["", fill(t("occDone"), {d: s.occurrence.date})]);
            if (s.occurrence && s.occurrence.state === "skipped") out.push(["", fill(t("occSkipped"), {d: s.occurrence.date})]);
            var words = state.lang === "ja" && s.todo.repeatDescriptionJa ? s.todo.repeatDescriptionJa : s.todo.repeatDescription;
            if (s.todo.repeat && words) out.push(["", fill(t("repeats"), {r: words})]);
            return out;
          }
          function render() {
            document.documentElement.lang = state.lang;
            var s = state.result;
            document.getElementById("heading").textContent = t(state.tool && TEXT.en[state.tool] ? state.tool : "saved");
            var zone = document.getElementById("zone");
            zone.hidden = !(s && state.hostZone && state.zone !== state.hostZone);
            zone.textContent = fill(t("zone"), {z: state.zone, h: state.hostZone});
            var ro = document.getElementById("readonly");
            ro.hidden = state.write || !s;
            ro.textContent = t("readonly");
            document.getElementById("empty").hidden = !!s;
            document.getElementById("empty").textContent = t("loading");
            var card = document.getElementById("card");
            card.hidden = !s;
            if (!s) { size(); return; }
            var todo = s.todo, info = nextRing(s);
            card.setAttribute("data-id", todo.id);
            document.getElementById("title").textContent = todo.title;
            var time = document.getElementById("time"), when = document.getElementById("when");
            if (info.ring != null && info.past) {
              time.textContent = clock(info.ring);
              when.textContent = dayText(info.ring) + (state.lang === "ja" ? " " : " — ") + t("past");
            } else if (info.ring != null) {
              time.textContent = clock(info.ring);
              when.textContent = dayText(info.ring) + (state.lang === "ja" ? " " : " — ")
                + (todo.repeat && !info.again ? t("next") : t(info.again ? "ringsAgain" : "rings"));
            } else { time.textContent = ""; when.textContent = t(info.none); }
            card.setAttribute("data-ring", info.ring != null ? parts(info.ring, state.zone).date + "T" + clock(info.ring) : "");
            var list = document.getElementById("notes");
            list.textContent = "";
            notes(s, info).forEach(function (n) { list.appendChild(el("li", n[0], n[1])); });
            list.hidden = !list.firstChild;
            var actions = document.getElementById("actions");
            actions.textContent = "";
            actions.setAttribute("aria-label", todo.title);
            if (state.write) {
              if (info.ring != null && !state.undone) {
                ALARM.forEach(function (b) {
                  actions.appendChild(button(b[0], t(b[0]), fill(t(b[1]), {t: todo.title}), function () {
                    alarm(b[0], todo.id, info.ring, todo.repeat && info.day ? info.day : null);
                  }));
                });
              }
              if (typeof s.undo === "string" && s.undo && !state.undone) {
                var undo = button("undo", t("undoButton"), fill(t("labelUndo"), {t: todo.title}), revert);
                undo.className = "undo";
                actions.appendChild(undo);
              }
            }
            actions.hidden = !actions.firstChild;
            size();
          }
          function revert() { call("undo", {undo: state.result.undo}); }
          // A call's answer is itself a write's result: it is shown in place.
          function answered(name, args, s) {
            if (s.todo && s.todo.id) {
              state.tool = name; state.args = args; state.result = s; state.undone = false;
            } else if (name === "undo") {
              state.undone = true;
            }
            return s.message || (name === "undo" ? t("undone") : "");
          }
          // The tool's name from the host, until a result says which write it was.
          function toolInfo(c) {
            var tool = c.toolInfo && c.toolInfo.tool && c.toolInfo.tool.name;
            if (typeof tool === "string" && !state.result) state.tool = tool;
          }
          function result(params) {
            var s = params && params.structuredContent;
            if (!s || !s.todo || !s.todo.id || params.isError) return;
            var meta = params._meta && params._meta["mustdo/connection"];
            state.write = !!(meta && meta.write === true);
            state.zone = s.timeZone || state.zone;
            if (!state.tool) state.tool = "alreadyDone" in s ? "complete_todo" : "snoozedUntil" in s ? "snooze_todo" : null;
            state.result = s;
            render();
          }
          start("MustDo Just written", {result: result, answered: answered, context: toolInfo});
        })();
        </script>
        </body>
        </html>
        """#
}
