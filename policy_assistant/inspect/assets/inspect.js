// Draws the document with one chunking over it, from the data embedded in the page.
// The text is embedded once; each chunking is only spans (first/last word) and records, so
// switching method or size redraws from those spans instead of shipping twelve copies.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  // Python offsets count code points; Array.from splits the same way (not UTF-16 units).
  const chars = Array.from(data.text);
  const slice = (start, end) => chars.slice(start, end).join("");
  const words = [];
  for (let i = 0; i < data.words.length; i += 2) words.push(slice(data.words[i], data.words[i + 1]));
  const methods = [];
  data.variants.forEach((v) => { if (!methods.includes(v.method)) methods.push(v.method); });

  const view = document.getElementById("view");
  const methodBox = document.getElementById("methods");
  const sizeBox = document.getElementById("sizes");
  let current = data.initial;
  let selected = null;
  let drawn = null;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  const slot = (number) => ((number - 1) % 2 === 0 ? "a" : "b");
  function stateOf(numbers) {
    if (numbers.length === 0) return "un";
    return numbers.length > 1 ? "ov" : slot(numbers[0]);
  }
  const pageLabel = (pages) => (pages.length === 0 ? "-" :
    pages.length === 1 ? String(pages[0]) : pages[0] + "–" + pages[pages.length - 1]);

  // Everything one chunking needs to be drawn: who covers each word, and where marks go.
  function prepare(variant) {
    const cover = words.map(() => []);
    const starts = new Map();
    const ends = new Map();
    for (const chunk of variant.chunks) {
      for (let i = Math.max(chunk.first, 0); i <= chunk.last; i++) cover[i].push(chunk.n);
      if (!starts.has(chunk.at)) starts.set(chunk.at, []);
      starts.get(chunk.at).push(chunk);
      if (chunk.endAt !== null) {
        if (!ends.has(chunk.endAt)) ends.set(chunk.endAt, []);
        ends.get(chunk.endAt).push(chunk);
      }
    }
    return { variant, cover, starts, ends, byChunk: new Map() };
  }

  function remember(ctx, number, node) {
    if (!ctx.byChunk.has(number)) ctx.byChunk.set(number, []);
    ctx.byChunk.get(number).push(node);
  }

  function startMark(ctx, chunk, parent) {
    if (chunk.cut) {
      const cut = el("span", "cut", "✂");
      cut.dataset.chunk = chunk.n;
      cut.title = "chunk " + chunk.n + " starts inside a " + chunk.cut;
      parent.append(cut);
    }
    const mark = el("button", "ms " + slot(chunk.n), "⟦" + chunk.n);
    mark.type = "button";
    mark.dataset.chunk = chunk.n;
    mark.setAttribute("aria-label", "chunk " + chunk.n + " starts" + (chunk.cut ? " inside a " + chunk.cut : ""));
    remember(ctx, chunk.n, mark);
    parent.append(mark);
  }

  function drawWord(ctx, index, parent) {
    const numbers = ctx.cover[index];
    const node = el("span", "w " + stateOf(numbers), words[index]);
    node.dataset.w = index;
    node.dataset.c = numbers.join(" ");
    numbers.forEach((n) => remember(ctx, n, node));
    parent.append(node);
  }

  function drawGap(ctx, before, after, parent) {
    const left = ctx.cover[before];
    const right = ctx.cover[after];
    // The space takes the colour of the chunk on both sides, so a chunk reads as one band.
    const same = left.length > 0 && left.join() === right.join();
    const gap = el("span", same ? "g " + stateOf(left) : "g", " ");
    if (same) left.forEach((n) => remember(ctx, n, gap));
    parent.append(gap);
  }

  function drawCell(ctx, cell, parent) {
    cell.forEach((index, k) => {
      if (k > 0) drawGap(ctx, cell[k - 1], index, parent);
      (ctx.starts.get(index) || []).forEach((chunk) => startMark(ctx, chunk, parent));
      drawWord(ctx, index, parent);
      (ctx.ends.get(index) || []).forEach((chunk) => {
        const mark = el("span", "me " + slot(chunk.n), chunk.n + "⟧");
        mark.dataset.chunk = chunk.n;
        parent.append(mark);
      });
    });
  }

  function lineNode(line) {
    if (line.k === "heading") {
      const level = Math.min(line.l || 1, 6);
      const node = el("div", "h h" + level);
      node.setAttribute("role", "heading");
      node.setAttribute("aria-level", String(Math.min(level + 2, 6)));
      return node;
    }
    if (line.k === "list_item") return el("div", line.bullet ? "li bullet" : "li");
    if (line.k === "code") {
      const node = el("div", "code");
      node.style.paddingLeft = "calc(0.5rem + " + line.i + "ch)";
      return node;
    }
    return el("p");
  }

  function draw() {
    const ctx = prepare(data.variants[current]);
    const out = document.createDocumentFragment();
    let table = null;
    for (const line of data.lines) {
      if (line.page !== undefined) {
        const rule = el("div", "pb", "page " + line.page);
        rule.setAttribute("role", "separator");
        out.append(rule);
        table = null;
        continue;
      }
      if (line.k !== "table") {
        table = null;
        const node = lineNode(line);
        drawCell(ctx, line.c[0], node);
        out.append(node);
        continue;
      }
      if (!table || table.dataset.block !== String(line.b)) {
        table = el("table", "dt");
        table.dataset.block = line.b;
        out.append(table);
      }
      const row = table.insertRow();
      for (let i = 0; i < line.w; i++) drawCell(ctx, line.c[i] || [], row.insertCell());
    }
    if (data.lines.length === 0) out.append(el("p", "hint", "The document has no text, so no chunks."));
    view.replaceChildren(out);
    drawn = ctx;
    fillTables(ctx.variant);
    document.getElementById("description").textContent = ctx.variant.description;
    document.getElementById("spec").textContent = ctx.variant.specLabel;
    selected = null;
    showRecord(null);
  }

  function fillTables(variant) {
    const readout = document.querySelector("#readout tbody");
    readout.replaceChildren(...variant.readout.map(([label, value]) => {
      const row = el("tr");
      const head = el("th", "", label);
      head.scope = "row";
      row.append(head, el("td", "", value));
      return row;
    }));
    const body = document.querySelector("#chunks tbody");
    body.replaceChildren(...variant.chunks.map((chunk) => {
      const row = el("tr");
      row.dataset.chunk = chunk.n;
      const number = el("td", "n");
      const button = el("button", "", (chunk.cut ? "✂" : "") + chunk.n);
      button.type = "button";
      button.dataset.chunk = chunk.n;
      button.setAttribute("aria-label", "show chunk " + chunk.n);
      number.append(button);
      row.append(number, el("td", "id", chunk.id), el("td", "n", chunk.start + "–" + chunk.end),
        el("td", "n", pageLabel(chunk.pages)), el("td", "n", String(chunk.words)),
        el("td", "", chunk.sections.map((path) => path[path.length - 1]).join("; ")));
      return row;
    }));
  }

  // A PDF chunk's boxes drawn over small pictures of its pages: where its text stands.
  function pageFigures(chunk) {
    const pct = (value, whole) => (100 * value / whole).toFixed(3) + "%";
    return (chunk.boxes || []).map(([page, x0, y0, x1, y1]) => {
      const figure = el("figure", "pagepic");
      figure.dataset.page = String(page);
      const picture = data.pictures[String(page)];
      const where = x0 + ", " + y0 + " – " + x1 + ", " + y1 + " pt";
      if (!picture) {
        figure.append(el("figcaption", "", "page " + page + ": " + where + " (no picture of the page)"));
        return figure;
      }
      const frame = el("div", "frame");
      const img = el("img");
      img.src = picture.src;
      img.alt = "page " + page;
      const box = el("div", "box");
      box.dataset.box = [x0, y0, x1, y1].join(" ");
      box.style.left = pct(x0, picture.w);
      box.style.top = pct(y0, picture.h);
      box.style.width = pct(x1 - x0, picture.w);
      box.style.height = pct(y1 - y0, picture.h);
      frame.append(img, box);
      figure.append(frame, el("figcaption", "", "page " + page + ": " + where));
      return figure;
    });
  }

  function showRecord(chunk) {
    const body = document.getElementById("record-body");
    document.getElementById("record-hint").hidden = chunk !== null;
    if (chunk === null) { body.replaceChildren(); return; }
    const list = el("dl");
    const add = (term, value) => list.append(el("dt", "", term), el("dd", "", value));
    add("chunk", "#" + chunk.n + " (position " + chunk.position + ")");
    add("ID", chunk.id);
    add("chunker", drawn.variant.specLabel);
    add("offsets", chunk.start + "–" + chunk.end + " (" + (chunk.end - chunk.start) + " characters)");
    add("pages", pageLabel(chunk.pages));
    add("sections", chunk.sections.map((path) => path.join(" > ")).join("; ") || "-");
    add("words", chunk.words + " (prefix included)");
    if (chunk.cut) add("starts", "inside a " + chunk.cut + " ✂");
    const text = el("pre");
    text.id = "record-text";
    if (chunk.prefix) text.append(el("span", "prefix", chunk.prefix));
    text.append(document.createTextNode(slice(chunk.start, chunk.end)));
    const figures = pageFigures(chunk);
    const pictured = figures.length ? [el("h3", "", "on the page"), ...figures] : [];
    body.replaceChildren(list, ...pictured, el("h3", "", "text (prefix, then body)"), text);
  }

  function select(number) {
    document.querySelectorAll(".sel").forEach((node) => node.classList.remove("sel"));
    const chunk = drawn.variant.chunks.find((c) => c.n === number) || null;
    selected = chunk ? number : null;
    if (chunk) {
      (drawn.byChunk.get(number) || []).forEach((node) => node.classList.add("sel"));
      const row = document.querySelector('#chunks tr[data-chunk="' + number + '"]');
      if (row) row.classList.add("sel");
    }
    showRecord(chunk);
  }

  function onClick(event) {
    const target = event.target.closest("[data-chunk], .w");
    if (!target) return;
    if (target.dataset.chunk) { select(Number(target.dataset.chunk)); return; }
    const numbers = target.dataset.c ? target.dataset.c.split(" ").map(Number) : [];
    if (numbers.length === 0) return;
    // A word in two chunks: each click moves to the next of them.
    select(numbers[(numbers.indexOf(selected) + 1) % numbers.length]);
  }

  function radio(box, name, value, label, checked) {
    const wrap = el("label");
    const input = el("input");
    input.type = "radio";
    input.name = name;
    input.value = value;
    input.checked = checked;
    wrap.append(input, document.createTextNode(label));
    box.append(wrap);
    return input;
  }

  function buildSizes() {
    const method = data.variants[current].method;
    sizeBox.querySelectorAll("label").forEach((node) => node.remove());
    data.variants.forEach((v, i) => {
      if (v.method === method) radio(sizeBox, "size", String(i), v.label, i === current);
    });
  }

  function onMethod(method) {
    // Keep the size's rank (smallest, middle, largest) when moving to another method.
    const same = data.variants.filter((v) => v.method === data.variants[current].method);
    const rank = same.indexOf(data.variants[current]);
    const next = data.variants.filter((v) => v.method === method);
    current = data.variants.indexOf(next[Math.min(rank, next.length - 1)]);
    buildSizes();
    draw();
  }

  methods.forEach((m) => radio(methodBox, "method", m, m, m === data.variants[current].method));
  methodBox.addEventListener("change", (e) => onMethod(e.target.value));
  sizeBox.addEventListener("change", (e) => { current = Number(e.target.value); draw(); });
  view.addEventListener("click", onClick);
  document.querySelector("#chunks tbody").addEventListener("click", (e) => {
    const row = e.target.closest("tr[data-chunk]");
    if (row) select(Number(row.dataset.chunk));
  });
  buildSizes();
  draw();
  document.body.dataset.ready = "true";
})();
