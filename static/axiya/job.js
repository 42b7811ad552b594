// Polls the job's status until it finishes, updating the progress bar.
(function () {
  const script = document.currentScript;
  const url = script.dataset.statusUrl;
  async function poll() {
    const response = await fetch(url, { credentials: "same-origin" });
    if (!response.ok) return;
    const data = await response.json();
    const bar = document.getElementById("progress");
    bar.max = data.pages_total || 1;
    bar.value = data.pages_done;
    document.getElementById("progress-text").textContent = `${data.pages_done} of ${data.pages_total}`;
    document.getElementById("job-status").textContent = data.status.replace("_", " ");
    if (["done", "needs_review", "failed"].includes(data.status)) {
      window.location.reload();
      return;
    }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 500);
})();
