// Upload form: drag and drop onto the box, a list of chosen files, and upload progress.
// Without JavaScript the form posts normally.
(function () {
  "use strict";
  const form = document.getElementById("upload-form");
  if (!form) return;
  const input = form.querySelector('input[type="file"]');
  const zone = document.getElementById("dropzone");
  const list = document.getElementById("file-list");
  const progress = document.getElementById("upload-progress");
  const bar = document.getElementById("upload-bar");
  const text = document.getElementById("upload-text");
  const errors = document.getElementById("upload-errors");
  const submit = document.getElementById("upload-submit");

  function showFiles() {
    list.replaceChildren();
    for (const file of input.files) {
      const li = document.createElement("li");
      li.textContent = `${file.name} (${(file.size / 1048576).toFixed(1)} MiB)`;
      list.append(li);
    }
    list.hidden = input.files.length === 0;
  }

  function showErrors(messages) {
    errors.replaceChildren();
    const ul = document.createElement("ul");
    for (const message of messages) {
      const li = document.createElement("li");
      li.textContent = message;
      ul.append(li);
    }
    errors.append(ul);
    errors.focus();
  }

  input.addEventListener("change", showFiles);
  for (const type of ["dragenter", "dragover"]) {
    zone.addEventListener(type, (event) => {
      event.preventDefault();
      zone.classList.add("dragging");
    });
  }
  for (const type of ["dragleave", "drop"]) {
    zone.addEventListener(type, () => zone.classList.remove("dragging"));
  }
  zone.addEventListener("drop", (event) => {
    event.preventDefault();
    if (event.dataTransfer && event.dataTransfer.files.length) {
      input.files = event.dataTransfer.files;
      showFiles();
    }
  });

  form.addEventListener("submit", (event) => {
    if (!window.FormData || !window.XMLHttpRequest) return;
    event.preventDefault();
    if (!input.files.length) {
      showErrors(["Choose at least one PDF file to convert."]);
      return;
    }
    const xhr = new XMLHttpRequest();
    xhr.open("POST", form.action);
    xhr.setRequestHeader("X-Requested-With", "XMLHttpRequest");
    progress.hidden = false;
    submit.disabled = true;
    errors.replaceChildren();
    xhr.upload.addEventListener("progress", (e) => {
      if (!e.lengthComputable) return;
      const pct = Math.round((e.loaded / e.total) * 100);
      bar.value = pct;
      text.textContent = pct < 100 ? `${pct} %` : "100 %, checking the files…";
    });
    xhr.addEventListener("load", () => {
      submit.disabled = false;
      let data = {};
      try {
        data = JSON.parse(xhr.responseText);
      } catch (err) {
        data = {};
      }
      if (xhr.status === 200 && data.redirect) {
        window.location.assign(data.redirect);
        return;
      }
      progress.hidden = true;
      if (xhr.status === 403) {
        showErrors(["Your session has expired. Reload the page, sign in and upload again."]);
      } else if (xhr.status === 413) {
        showErrors(["The upload is too large for this server. Split the PDF and try again."]);
      } else {
        showErrors(data.errors || [`The upload failed (HTTP ${xhr.status}). Try again.`]);
      }
    });
    xhr.addEventListener("error", () => {
      submit.disabled = false;
      progress.hidden = true;
      showErrors(["The connection to the server was lost. Check it and upload again."]);
    });
    xhr.send(new FormData(form));
  });
})();
