(function () {
  "use strict";
  var root = document.documentElement;
  window.addEventListener("error", function (e) {
    root.setAttribute("data-errors", (root.getAttribute("data-errors") || "") + e.message + ";");
  });
  var token = new URLSearchParams(location.search).get("token") || "";
  var conn = document.getElementById("conn");
  var rows = document.getElementById("windows");
  var nrows = document.getElementById("nrows");
  var maxRows = 300;
  var events = 0;
  function seen(kind) {
    events++;
    root.setAttribute("data-events", String(events));
    root.setAttribute("data-last-event", kind);
  }
  var es = new EventSource("events?token=" + encodeURIComponent(token));
  es.onopen = function () { conn.textContent = "live"; conn.className = "conn muted"; };
  es.onerror = function () {
    if (root.getAttribute("data-done") === "1") { return; }
    conn.textContent = "disconnected; retrying…"; conn.className = "conn off";
  };
  es.addEventListener("status", function (e) {
    document.getElementById("status").innerHTML = e.data; seen("status");
  });
  es.addEventListener("rows", function (e) {
    rows.innerHTML = e.data; nrows.textContent = String(rows.rows.length); seen("rows");
  });
  es.addEventListener("window", function (e) {
    rows.insertAdjacentHTML("afterbegin", e.data);
    while (rows.rows.length > maxRows) { rows.deleteRow(rows.rows.length - 1); }
    nrows.textContent = String(rows.rows.length); seen("window");
  });
  es.addEventListener("report", function (e) {
    var r = document.getElementById("report");
    r.innerHTML = e.data;
    r.setAttribute("data-looks", String(Number(r.getAttribute("data-looks") || "0") + 1));
    seen("report");
  });
  es.addEventListener("done", function () {
    root.setAttribute("data-done", "1"); conn.textContent = "run ended"; conn.className = "conn muted";
    es.close(); seen("done");
  });
})();
