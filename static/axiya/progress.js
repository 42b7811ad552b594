// Polls each unfinished job's status (elements with data-status-url) and updates its progress.
// The job page reloads once the job has finished, to show the result.
(function () {
  "use strict";
  const DONE = ["done", "needs_review", "failed"];

  function update(el, data) {
    const bar = el.querySelector("progress");
    const total = data.pages_total || 1;
    if (bar) {
      bar.max = total;
      bar.value = data.pages_done;
    }
    const pct = Math.round((data.pages_done / total) * 100);
    const line = `${data.pages_done} of ${data.pages_total} pages (${pct} %)`;
    const text = el.querySelector("#progress-text, .row-text");
    if (text) text.textContent = line;
    const status = el.querySelector("#job-status, .row-status");
    if (status) status.textContent = data.status_display;
    const live = el.querySelector("#progress-live");
    if (live && live.dataset.last !== String(data.pages_done)) {
      live.dataset.last = String(data.pages_done);
      live.textContent = `${data.status_display}: ${line}`;
    }
  }

  function watch(el) {
    const url = el.dataset.statusUrl;
    async function poll() {
      let data;
      try {
        const response = await fetch(url, { credentials: "same-origin" });
        if (!response.ok) return;
        data = await response.json();
      } catch (err) {
        setTimeout(poll, 3000);
        return;
      }
      update(el, data);
      if (DONE.includes(data.status)) {
        el.dataset.finished = "true";
        if (el.id === "job-progress") setTimeout(() => window.location.reload(), 400);
        return;
      }
      setTimeout(poll, 1000);
    }
    setTimeout(poll, 300);
  }

  for (const el of document.querySelectorAll("[data-status-url]")) {
    if (el.dataset.finished !== "true") watch(el);
  }
})();
