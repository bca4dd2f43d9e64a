// Draws a question's body when it is opened: its passages, and per chunker the verdict at
// each budget and the ranked results, with the evidence highlighted inside each chunk's text.
"use strict";
(function () {
  const data = JSON.parse(document.getElementById("data").textContent);
  const REASONS = {
    not_retrieved: "not retrieved",
    below_budget: "below budget",
    cut: "cut",
  };

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const plural = (n, word) => n + " " + word + (n === 1 ? "" : "s");

  // Offsets count code points, as Python does: slice arrays of code points, not strings.
  function quoteOf(passage) {
    if (passage.evidence) return passage.evidence;
    const [start, end] = passage.evidence_span;
    for (const chunk of Object.values(data.chunks)) {
      if (chunk.source === passage.source && chunk.start <= start && end <= chunk.end) {
        return Array.from(chunk.body).slice(start - chunk.start, end - chunk.start).join("");
      }
    }
    return null;
  }

  function drawPassages(question) {
    const list = el("ul", "passages");
    question.relevant.forEach((passage) => {
      const item = el("li");
      const where = passage.source + (passage.section ? " › " + passage.section : "");
      item.append(document.createTextNode(where + ": "));
      const quote = quoteOf(passage);
      if (quote === null) {
        const [start, end] = passage.evidence_span;
        item.append(document.createTextNode("the quote at characters " + start + "–" + end));
      } else {
        item.append(el("q", "", quote));
      }
      list.append(item);
    });
    return list;
  }

  function rankOf(outcome, chunkId) {
    const found = outcome.retrieved.find((r) => r.chunk === chunkId);
    return found ? "rank " + found.rank : "not retrieved";
  }

  function explain(outcome, budget, at) {
    const noun = at.context ? "passage" : "result";
    const context = plural(at.packed, noun) + ", " + at.words + " " + data.unit;
    if (at.miss === null) return "complete: the context (" + context + ") holds every quote whole";
    if (at.miss === "cut") {
      const pieces = at.passages.filter((p) => p.status === "cut").flatMap((p) => p.chunks);
      const named = pieces.map((id) => id + " (" + rankOf(outcome, id) + ")").join(", ");
      return "cut: no chunk holds the quote whole; its pieces are in " + named;
    }
    if (at.miss === "below_budget") {
      const would = outcome.retrieved.find((r) => r.holds_evidence) ||
        outcome.retrieved.find((r) => r.relevant);
      const what = would ? "rank " + would.rank + (would.holds_evidence ? " holds the quote" : " is relevant") :
        at.context ? "a unit of the quote was among the hits" : "a chunk that would do was retrieved";
      return "below budget: " + what + ", but " + budget + " " + data.unit + " pack only the first " + context;
    }
    return "not retrieved: no chunk that would do was among the " +
      plural(outcome.retrieved.length, "candidate");
  }

  // What share of the quotes the context holds, and whether the first result was cut to fit.
  function held(at) {
    const cut = at.cut ? "; the first result was over B, cut to its first sentences" : "";
    return " · holds " + Math.round(at.evidence * 100) + "% of the evidence" + cut;
  }

  // A chunking miss: no set of the row's chunks within B holds the evidence; a ranking miss:
  // one does, ranking did not bring it.
  function limitOf(at) {
    if (at.limit === "chunking") return " · chunking miss: no chunks within B hold the evidence";
    if (at.limit === "ranking") return " · ranking miss: chunks within B hold it, not ranked first";
    return "";
  }

  function verdicts(outcome) {
    const list = el("ul", "verdicts");
    data.budgets.forEach((budget) => {
      const at = outcome.budgets[String(budget)];
      const kind = at.complete ? "complete" : at.hit ? "hit" : "miss";
      const item = el("li", kind, "B = " + budget + ": " + explain(outcome, budget, at) +
        held(at) + limitOf(at));
      item.dataset.budget = budget;
      item.dataset.miss = at.miss || "";
      list.append(item);
    });
    return list;
  }

  function chunkText(question, result) {
    const chunk = data.chunks[result.chunk];
    if (!chunk) return null;
    const text = el("pre", "chunk-text");
    if (chunk.prefix) text.append(el("span", "prefix", chunk.prefix));
    const body = Array.from(chunk.body);
    // Every passage of the same document whose quote overlaps the body, as [from, to) in it.
    const marks = question.relevant
      .filter((p) => p.source === chunk.source)
      .map((p) => [Math.max(p.evidence_span[0], chunk.start) - chunk.start,
        Math.min(p.evidence_span[1], chunk.end) - chunk.start])
      .filter(([from, to]) => from < to)
      .sort((x, y) => x[0] - y[0]);
    let at = 0;
    for (const [from, to] of marks) {
      if (from < at) continue;
      text.append(document.createTextNode(body.slice(at, from).join("")));
      text.append(el("mark", "evidence", body.slice(from, to).join("")));
      at = to;
    }
    text.append(document.createTextNode(body.slice(at).join("")));
    return text;
  }

  function drawResult(question, outcome, result) {
    const item = el("li");
    item.dataset.chunk = result.chunk;
    const head = el("div", "result-head");
    head.append(el("span", "rank", "#" + result.rank), el("span", "", result.source +
      " · chunk " + (result.position + 1)), el("span", "", result.words + " " + data.unit),
      el("span", "", "score " + result.score));
    if (result.relevant) head.append(el("span", "badge relevant", "relevant"));
    if (result.holds_evidence) head.append(el("span", "badge holds", "holds the quote"));
    if (question.audience === "public" && result.access !== "public") {
      head.append(el("span", "badge leak", "LEAK: " + result.access));
    }
    const inside = data.budgets.filter((b) => result.rank <= outcome.budgets[String(b)].packed);
    if (inside.length) head.append(el("span", "badge context", "in context at " + inside.join(", ")));
    item.append(head);
    const text = chunkText(question, result);
    if (text) item.append(text);
    return item;
  }

  // A context strategy has no ranked chunks: list the passages it assembled at each budget.
  function drawContext(outcome) {
    const list = el("ol", "results");
    data.budgets.forEach((budget) => {
      (outcome.budgets[String(budget)].context || []).forEach((part, i) => {
        const head = el("div", "result-head");
        const pages = part.pages.length ? " · p. " + part.pages.join(",") : "";
        head.append(el("span", "rank", "B = " + budget + " #" + (i + 1)),
          el("span", "", part.source + pages + (part.section ? " · " + part.section : "")),
          el("span", "", "characters " + part.start + "–" + part.end),
          el("span", "", part.words + " " + data.unit));
        if (part.quote === "whole") head.append(el("span", "badge holds", "holds the quote"));
        if (part.quote === "part") head.append(el("span", "badge relevant", "part of the quote"));
        const item = el("li");
        item.append(head);
        list.append(item);
      });
    });
    return list;
  }

  function drawBody(details) {
    const question = data.questions[Number(details.dataset.index)];
    const body = details.querySelector(".qbody");
    const parts = [drawPassages(question)];
    for (const [name, outcome] of Object.entries(question.chunkers)) {
      const run = el("div", "run");
      run.dataset.chunker = name;
      const hit = outcome["hit@k"] ? "a relevant chunk in the top " + data.k : "nothing relevant in the top " + data.k;
      run.append(el("h3", "", data.specs[name] + ": " + hit));
      run.append(verdicts(outcome));
      const results = el("ol", "results");
      outcome.retrieved.forEach((r) => results.append(drawResult(question, outcome, r)));
      run.append(outcome.retrieved.length ? results : drawContext(outcome));
      parts.push(run);
    }
    body.replaceChildren(...parts);
    // A long chunk scrolls inside its box: bring its evidence into view.
    body.querySelectorAll("pre.chunk-text").forEach((pre) => {
      const mark = pre.querySelector("mark");
      if (mark) pre.scrollTop = Math.max(0, mark.offsetTop - 24);
    });
    details.dataset.drawn = "true";
  }

  document.querySelectorAll("details.question").forEach((details) => {
    details.addEventListener("toggle", () => {
      if (details.open && !details.dataset.drawn) drawBody(details);
    });
  });
  document.getElementById("filter").addEventListener("change", (event) => {
    const onlyMissed = event.target.value === "missed";
    document.querySelectorAll("details.question").forEach((details) => {
      details.hidden = onlyMissed && details.dataset.miss !== "true";
    });
  });
  document.body.dataset.ready = "true";
})();
