// The review page after "Read page N again": polls until the new reading is in, then puts the
// page's new parts in place (every element marked data-refresh, by id) without a reload, so
// focus stays where it was, and says so in the polite live region (WCAG 4.1.3).
(function () {
  "use strict";
  const live = document.getElementById("reread-live");
  if (!live || !live.dataset.statusUrl) return;
  const EVERY_MS = 2000;
  const GIVE_UP_MS = 10 * 60 * 1000;
  const started = Date.now();
  const page = live.dataset.page;

  async function refresh() {
    const response = await fetch(live.dataset.pageUrl, { credentials: "same-origin" });
    if (!response.ok) throw new Error(String(response.status));
    const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
    for (const old of document.querySelectorAll("[data-refresh]")) {
      const next = fresh.getElementById(old.id);
      if (next) old.replaceWith(document.importNode(next, true));
    }
  }

  async function poll() {
    let done = false;
    try {
      const response = await fetch(live.dataset.statusUrl, { credentials: "same-origin" });
      done = response.ok && (await response.json()).done;
    } catch (err) {
      done = false;
    }
    if (done) {
      try {
        await refresh();
        history.replaceState(null, "", live.dataset.pageUrl);
        live.textContent = `Page ${page} has been read again: the page, its findings and the editors now show the new reading.`;
      } catch (err) {
        live.textContent = `Page ${page} has been read again: reload this page to see it.`;
      }
      return;
    }
    if (Date.now() - started > GIVE_UP_MS) {
      live.textContent = `Page ${page} is still being read: reload this page later.`;
      return;
    }
    setTimeout(poll, EVERY_MS);
  }

  live.textContent = `Page ${page} is being read again…`;
  setTimeout(poll, EVERY_MS);
})();
