// Polls each unfinished job's status (elements with data-status-url) and updates its progress.
// The job page reloads once the job has finished, to show the result. Every change worth
// hearing goes to a polite live region (WCAG 4.1.3): pages read on the job page; each finished
// document and the count of finished ones on the batch page.
(function () {
  "use strict";
  const DONE = ["done", "needs_review", "failed"];
  const batch = document.getElementById("batch-progress");

  function announce(region, text) {
    if (region && region.textContent !== text) region.textContent = text;
  }

  function batchChanged(el, data) {
    if (!batch) return;
    const rows = document.querySelectorAll("[data-status-url]");
    const finished = [...rows].filter((r) => r.dataset.finished === "true").length;
    const total = rows.length;
    const line = `${finished} of ${total} document${total === 1 ? "" : "s"} finished.`;
    document.getElementById("batch-summary").textContent = line;
    // "N files are queued." is no longer true once every document has finished.
    const queued = document.getElementById("batch-queued");
    if (queued && finished === total) queued.remove();
    const name = el.querySelector(".row-status").dataset.name;
    announce(document.getElementById("batch-live"), `${name}: ${data.status_display}. ${line}`);
  }

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
    const statusChanged = status && status.textContent !== data.status_display;
    if (statusChanged) status.textContent = data.status_display;
    const queue = document.getElementById("queue-position");
    if (queue && el.id === "job-progress") {
      queue.hidden = !data.queue_position;
      document.getElementById("queue-number").textContent = data.queue_position || "";
    }
    const estimate = document.getElementById("estimate");
    if (estimate && el.id === "job-progress") {
      estimate.hidden = !data.estimate;
      document.getElementById("estimate-text").textContent = data.estimate || "";
    }
    const live = el.querySelector("#progress-live");
    if (live && live.dataset.last !== `${data.status}:${data.pages_done}`) {
      live.dataset.last = `${data.status}:${data.pages_done}`;
      const place = data.queue_position ? `, number ${data.queue_position} in the queue` : "";
      announce(live, `${data.status_display}${place}: ${line}`);
    }
    if (DONE.includes(data.status)) el.dataset.finished = "true";
    if (statusChanged || DONE.includes(data.status)) batchChanged(el, data);
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
