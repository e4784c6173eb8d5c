// The page of examples/web: loads tagger.wasm (the Go bindings of package
// examples/web/wasm, which define globalThis.sparsetag), the embedded models
// and the sample words, then runs the two panels. Plain JavaScript, no
// dependency; everything stays in the page.
'use strict';
(() => {

const ROWS = 16, COLS = 8, PIXELS = ROWS * COLS; // an OCR letter: 16 rows of 8 pixels
const CELL = 12;          // screen pixels per image pixel
const MAX_LETTERS = 16;   // site.go maxLetters
const TOP = 5;            // alternatives shown per position
const NBEST = 5;          // n-best list length

// app is the page's state; the end-to-end test reads it too.
const app = {
  ready: false,
  timings: {},    // wasmBytes, fetchCompileMillis, goStartMillis, readyMillis, modelsMillis
  models: [],     // {id, title, panel, info}
  samples: [],
  ocr: { letters: [], result: null, modelId: 0 },
  text: { result: null, modelId: 0 },
  error: null,
};
window.app = app;

const $ = (id) => document.getElementById(id);

// el creates an element with properties and children (strings or nodes).
function el(tag, props, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props || {})) {
    if (k === 'class') e.className = v;
    else if (k === 'data') Object.assign(e.dataset, v);
    else if (k === 'style') Object.assign(e.style, v);
    else e[k] = v;
  }
  for (const c of children) {
    if (c !== null && c !== undefined) e.append(c);
  }
  return e;
}

// call calls a function of the bindings and throws the Error it returns.
function call(name, ...args) {
  const r = globalThis.sparsetag[name](...args);
  if (r instanceof Error) throw r;
  return r;
}

const fmtP = (p) => p.toFixed(3);

// heat returns the background of a probability cell: white to blue.
function heat(p) {
  return { background: `rgba(31, 95, 191, ${Math.max(0.04, p).toFixed(3)})`, color: p > 0.5 ? '#fff' : '#1b1f24' };
}

async function start() {
  const t0 = performance.now();
  const go = new Go();
  const ready = new Promise((resolve) => { globalThis.onSparsetagReady = resolve; });
  let inst;
  try {
    inst = await WebAssembly.instantiateStreaming(fetch('tagger.wasm'), go.importObject);
  } catch (e) {
    // A static server that does not send application/wasm: compile from bytes.
    const bytes = await (await fetch('tagger.wasm')).arrayBuffer();
    inst = await WebAssembly.instantiate(bytes, go.importObject);
  }
  const t1 = performance.now();
  go.run(inst.instance);
  await ready;
  const t2 = performance.now();
  const entry = performance.getEntriesByName(new URL('tagger.wasm', location.href).href)[0];
  Object.assign(app.timings, {
    wasmBytes: entry ? entry.decodedBodySize : 0,
    wasmTransferBytes: entry ? entry.encodedBodySize : 0,
    fetchCompileMillis: t1 - t0,
    goStartMillis: t2 - t1,
    readyMillis: t2, // since navigation started
  });

  const manifest = await (await fetch('models.json')).json();
  const t3 = performance.now();
  for (const m of manifest.models) {
    const bytes = new Uint8Array(await (await fetch('models/' + m.file)).arrayBuffer());
    const info = call('load', m.file, bytes);
    app.models.push({ id: info.id, title: m.title, panel: m.panel, info });
  }
  app.timings.modelsMillis = performance.now() - t3;
  app.samples = await (await fetch('samples.json')).json();

  const t = app.timings;
  $('status').textContent =
    `tagger.wasm ${(t.wasmBytes / 1e6).toFixed(2)} MB` +
    (t.wasmTransferBytes && t.wasmTransferBytes < t.wasmBytes ? ` (${(t.wasmTransferBytes / 1e6).toFixed(2)} MB transferred)` : '') +
    `: fetched and compiled in ${t.fetchCompileMillis.toFixed(0)} ms, Go started in ${t.goStartMillis.toFixed(0)} ms; ` +
    `${app.models.length} models loaded in ${t.modelsMillis.toFixed(0)} ms.`;

  initOCR();
  initText();
  $('model-file').addEventListener('change', loadFile);
  app.ready = true;
  document.body.dataset.ready = 'true';
}

// fillSelect lists the models of a panel and selects id.
function fillSelect(select, panel, id) {
  select.replaceChildren(...app.models.filter((m) => m.panel === panel).map((m) =>
    el('option', { value: String(m.id), textContent: m.title, selected: m.id === id })));
}

// loadFile reads a model file chosen by the user, in the page.
function loadFile(ev) {
  const file = ev.target.files[0];
  if (!file) return;
  const status = $('file-status');
  const reader = new FileReader();
  reader.onload = () => {
    let info;
    try {
      info = call('load', file.name, new Uint8Array(reader.result));
    } catch (e) {
      status.textContent = `${file.name}: ${e.message}`;
      status.className = 'error';
      return;
    }
    status.className = 'status';
    const what = `${file.name}: ${info.format} model, ${info.labels.length} labels, read in ${info.loadMillis.toFixed(1)} ms`;
    if (info.input === 'pixels') {
      app.models.push({ id: info.id, title: file.name, panel: 'ocr', info });
      fillSelect($('ocr-model'), 'ocr', info.id);
      app.ocr.modelId = info.id;
      recognize();
      status.textContent = what + '; it reads OCR letters: see Handwriting.';
    } else if (info.input === 'columns') {
      app.models.push({ id: info.id, title: file.name, panel: 'text', info });
      fillSelect($('text-model'), 'text', info.id);
      app.text.modelId = info.id;
      tagText();
      status.textContent = what + '; it reads token columns: see Text' +
        (info.columns > 1 ? ` (it needs ${info.columns} columns per token, the text box gives one).` : '.');
    } else {
      status.textContent = what + `; it reads ${info.input}, which neither panel gives.`;
    }
  };
  reader.onerror = () => { status.textContent = `${file.name}: ${reader.error}`; };
  reader.readAsArrayBuffer(file);
}

// ---------------------------------------------------------------- Handwriting

function initOCR() {
  const first = app.models.find((m) => m.panel === 'ocr');
  app.ocr.modelId = first ? first.id : 0;
  fillSelect($('ocr-model'), 'ocr', app.ocr.modelId);
  $('ocr-model').addEventListener('change', (e) => { app.ocr.modelId = Number(e.target.value); recognize(); });
  $('ocr-clear').addEventListener('click', () => setLetters([]));
  $('ocr-back').addEventListener('click', () => {
    const n = wordLength();
    setLetters(app.ocr.letters.slice(0, Math.max(0, n - 1)).map((c) => c.pixels));
  });
  $('ocr-sample').addEventListener('click', () => {
    if (!app.samples.length) return;
    const s = app.samples[Math.floor(Math.random() * app.samples.length)];
    setLetters(s.letters.map((l) => Uint8Array.from(l, (ch) => ch === '1' ? 1 : 0)));
  });
  setLetters([]);
}

// setLetters replaces the pad's letters (and adds the empty box).
function setLetters(images) {
  $('pad').replaceChildren();
  app.ocr.letters = [];
  for (const im of images) addLetter(im);
  ensureEmptyLast();
  recognize();
}

// wordLength is the number of boxes up to the last one with ink.
function wordLength() {
  const ls = app.ocr.letters;
  let n = ls.length;
  while (n > 0 && !ls[n - 1].pixels.some((v) => v)) n--;
  return n;
}

function ensureEmptyLast() {
  const ls = app.ocr.letters;
  if (ls.length < MAX_LETTERS && (ls.length === 0 || ls[ls.length - 1].pixels.some((v) => v))) addLetter();
  ls.forEach((c, i) => c.box.classList.toggle('empty', i >= wordLength()));
}

function addLetter(pixels) {
  const i = app.ocr.letters.length;
  const canvas = el('canvas', { width: COLS * CELL + 1, height: ROWS * CELL + 1, title: `letter ${i + 1}` });
  const c = {
    pixels: pixels ? Uint8Array.from(pixels) : new Uint8Array(PIXELS),
    canvas,
    best: el('div', { class: 'best' }),
    bestP: el('div', { class: 'best-p' }),
    alone: el('div', { class: 'alone' }),
    alts: el('ol', { class: 'alts' }),
  };
  c.box = el('div', { class: 'letter', data: { i: String(i) } }, canvas, c.best, c.bestP, c.alone, c.alts);
  app.ocr.letters.push(c);
  $('pad').append(c.box);
  attachPen(c);
  drawLetter(c);
}

function drawLetter(c) {
  const g = c.canvas.getContext('2d');
  g.fillStyle = '#fff';
  g.fillRect(0, 0, c.canvas.width, c.canvas.height);
  g.fillStyle = '#1b1f24';
  for (let r = 0; r < ROWS; r++) {
    for (let k = 0; k < COLS; k++) {
      if (c.pixels[r * COLS + k]) g.fillRect(k * CELL + 1, r * CELL + 1, CELL - 1, CELL - 1);
    }
  }
  g.strokeStyle = '#e3e7ec';
  g.lineWidth = 1;
  g.beginPath();
  for (let k = 0; k <= COLS; k++) { g.moveTo(k * CELL + 0.5, 0); g.lineTo(k * CELL + 0.5, ROWS * CELL + 1); }
  for (let r = 0; r <= ROWS; r++) { g.moveTo(0, r * CELL + 0.5); g.lineTo(COLS * CELL + 1, r * CELL + 0.5); }
  g.stroke();
}

// attachPen lets the pointer draw into a letter: a stroke lights (or, with
// the right button or Shift, clears) every pixel on the segments between
// the pointer's positions.
function attachPen(c) {
  let stroke = null; // {value, r, k}
  const at = (e) => {
    const rect = c.canvas.getBoundingClientRect();
    const k = Math.floor((e.clientX - rect.left) / rect.width * COLS);
    const r = Math.floor((e.clientY - rect.top) / rect.height * ROWS);
    return [Math.min(ROWS - 1, Math.max(0, r)), Math.min(COLS - 1, Math.max(0, k))];
  };
  const paint = (r, k) => {
    let changed = false;
    line(stroke.r, stroke.k, r, k, (rr, kk) => {
      const i = rr * COLS + kk;
      if (c.pixels[i] !== stroke.value) { c.pixels[i] = stroke.value; changed = true; }
    });
    stroke.r = r; stroke.k = k;
    if (changed) { drawLetter(c); scheduleRecognize(); }
  };
  c.canvas.addEventListener('contextmenu', (e) => e.preventDefault());
  c.canvas.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    c.canvas.setPointerCapture(e.pointerId);
    const [r, k] = at(e);
    stroke = { value: (e.button === 2 || e.shiftKey) ? 0 : 1, r, k };
    paint(r, k);
  });
  c.canvas.addEventListener('pointermove', (e) => {
    if (!stroke) return;
    const [r, k] = at(e);
    paint(r, k);
  });
  const end = () => {
    if (!stroke) return;
    stroke = null;
    ensureEmptyLast();
    scheduleRecognize();
  };
  c.canvas.addEventListener('pointerup', end);
  c.canvas.addEventListener('pointercancel', end);
}

// line calls f for every cell of the segment (r0,k0)-(r1,k1) (Bresenham).
function line(r0, k0, r1, k1, f) {
  const dr = Math.abs(r1 - r0), dk = Math.abs(k1 - k0);
  const sr = r0 < r1 ? 1 : -1, sk = k0 < k1 ? 1 : -1;
  let err = dk - dr;
  for (;;) {
    f(r0, k0);
    if (r0 === r1 && k0 === k1) return;
    const e2 = 2 * err;
    if (e2 > -dr) { err -= dr; k0 += sk; }
    if (e2 < dk) { err += dk; r0 += sr; }
  }
}

let recognizeQueued = false;
function scheduleRecognize() {
  if (recognizeQueued) return;
  recognizeQueued = true;
  requestAnimationFrame(() => { recognizeQueued = false; recognize(); });
}

// recognize tags the word on the pad and shows the result.
function recognize() {
  const n = wordLength();
  const ls = app.ocr.letters;
  $('ocr-error').textContent = '';
  app.ocr.result = null;
  ls.forEach((c, i) => c.box.classList.toggle('empty', i >= n));
  if (n === 0 || !app.ocr.modelId) {
    ls.forEach(clearLetterResult);
    $('ocr-summary').textContent = n === 0 ? 'Draw a letter in the first box.' : 'No model reads OCR letters.';
    $('ocr-nbest').replaceChildren();
    return;
  }
  const model = app.models.find((m) => m.id === app.ocr.modelId);
  let r;
  try {
    const pixels = new Uint8Array(n * PIXELS); // all the letters in one array: the cheapest to pass
    ls.slice(0, n).forEach((c, t) => pixels.set(c.pixels, t * PIXELS));
    r = call('tag', app.ocr.modelId, { pixels },
      { nbest: NBEST, independent: model.info.independent });
  } catch (e) {
    $('ocr-error').textContent = e.message;
    return;
  }
  app.ocr.result = r;
  const labels = model.info.labels;
  ls.forEach((c, t) => {
    if (t >= n) { clearLetterResult(c); return; }
    const row = r.marginals[t];
    const best = labels.indexOf(r.labels[t]);
    c.best.textContent = r.labels[t];
    c.bestP.textContent = fmtP(row[best]);
    if (r.independent) {
      const a = r.independent.labels[t];
      const pa = r.independent.marginals[t][labels.indexOf(a)];
      c.alone.textContent = `alone: ${a} ${fmtP(pa)}`;
      c.alone.classList.toggle('changed', a !== r.labels[t]);
      c.alone.dataset.label = a;
    } else {
      c.alone.textContent = '';
    }
    c.alts.replaceChildren(...topIndices(row, TOP).map((y) =>
      el('li', { style: heat(row[y]), data: { label: labels[y], p: String(row[y]) } },
        el('span', {}, labels[y]), el('span', {}, fmtP(row[y])))));
  });
  const word = r.labels.join('');
  const summary = [el('span', {}, 'The chain reads '), el('span', { class: 'word', id: 'ocr-word' }, word),
    el('span', {}, ` (probability ${fmtP(r.prob)})`)];
  if (r.independent) {
    const alone = r.independent.labels.join('');
    const changed = r.labels.map((l, t) => l !== r.independent.labels[t] ? t : -1).filter((t) => t >= 0);
    summary.push(el('span', {}, '; letters read one at a time: '), el('span', { class: 'word', id: 'ocr-alone' }, alone),
      el('span', { class: changed.length ? 'changed' : '' }, changed.length
        ? ` — the transitions changed ${changed.length} letter${changed.length > 1 ? 's' : ''} (` +
          changed.map((t) => `${t + 1}: ${r.independent.labels[t]} → ${r.labels[t]}`).join(', ') + ')'
        : ' — the same word'));
  }
  summary.push(el('span', { class: 'status' }, ` · ${r.millis.toFixed(2)} ms`));
  $('ocr-summary').replaceChildren(...summary);
  $('ocr-nbest').replaceChildren(...r.nbest.map((p) => el('li', { data: { prob: String(p.prob) } },
    ...p.labels.map((l, t) => l === r.labels[t] ? l : el('span', { class: 'diff' }, l)),
    el('span', { class: 'p' }, fmtP(p.prob)))));
}

function clearLetterResult(c) {
  c.best.textContent = '';
  c.bestP.textContent = '';
  c.alone.textContent = '';
  c.alone.classList.remove('changed');
  c.alts.replaceChildren();
}

// topIndices returns the indices of the k largest values of row, largest first
// (ties: lowest index first).
function topIndices(row, k) {
  return row.map((p, y) => y).sort((a, b) => row[b] - row[a] || a - b).slice(0, k);
}

// ----------------------------------------------------------------------- Text

function initText() {
  const first = app.models.find((m) => m.panel === 'text');
  app.text.modelId = first ? first.id : 0;
  fillSelect($('text-model'), 'text', app.text.modelId);
  $('text-model').addEventListener('change', (e) => { app.text.modelId = Number(e.target.value); tagText(); });
  $('text-input').addEventListener('input', tagText);
  tagText();
}

// tagText tags the text box's sentence and shows the result.
function tagText() {
  const text = $('text-input').value;
  $('text-error').textContent = '';
  app.text.result = null;
  const clear = () => {
    $('text-chunks').replaceChildren();
    $('text-table').tBodies[0].replaceChildren();
    $('text-nbest').replaceChildren();
    $('text-time').textContent = '';
    $('text-spans').tBodies[0].replaceChildren();
    $('text-spans-note').textContent = '';
  };
  if (!text.trim() || !app.text.modelId) { clear(); return; }
  const model = app.models.find((m) => m.id === app.text.modelId);
  const t0 = performance.now();
  let r;
  try {
    r = call('tag', app.text.modelId, { text }, { nbest: NBEST });
  } catch (e) {
    clear();
    $('text-error').textContent = e.message;
    return;
  }
  const elapsed = performance.now() - t0;
  app.text.result = r;
  const labels = model.info.labels;
  $('text-chunks').replaceChildren(...chunks(r, text));
  $('text-time').textContent = `${r.tokens.length} tokens tagged in ${elapsed.toFixed(2)} ms (decoding ${r.millis.toFixed(2)} ms); ` +
    `probability of the best sequence ${fmtP(r.prob)}`;
  $('text-table').tBodies[0].replaceChildren(...r.tokens.map((tok, t) => {
    const row = r.marginals[t];
    const y = labels.indexOf(r.labels[t]);
    const alts = topIndices(row, 4).filter((a) => a !== y).slice(0, 3);
    return el('tr', {},
      el('td', {}, tok),
      el('td', { class: 'label' }, r.labels[t]),
      el('td', { class: 'marginal', data: { p: String(row[y]) } },
        el('span', { class: 'bar', style: { width: `${Math.round(row[y] * 60)}px` } }), fmtP(row[y])),
      el('td', {}, ...alts.map((a) => el('span', { class: 'alt' }, `${labels[a]} ${fmtP(row[a])}`))));
  }));
  $('text-nbest').replaceChildren(...r.nbest.map((p) => el('li', { data: { prob: String(p.prob) } },
    ...p.labels.flatMap((l, t) => [t ? ' ' : '', l === r.labels[t] ? l : el('span', { class: 'diff' }, l)]),
    el('span', { class: 'p' }, fmtP(p.prob)))));
  showSpans(model, text);
}

// showSpans lists the chunks of the text as spans (tagger tag --format
// document --output spans): the text may hold several sentences; offsets
// are code points (start, end) and UTF-8 bytes, each span with its
// confidence, the marginal probability that exactly it is a chunk of its
// label.
function showSpans(model, text) {
  const body = $('text-spans').tBodies[0];
  body.replaceChildren();
  $('text-spans-note').textContent = '';
  if (!model.info.text) return;
  let r;
  try {
    r = call('spans', model.id, text, '');
  } catch (e) {
    $('text-spans-note').textContent = e.message;
    return;
  }
  $('text-spans-note').textContent = `${r.sentences.length} sentence${r.sentences.length === 1 ? '' : 's'}, ` +
    `${r.spans.length} spans (${r.scheme}, decoded under its constraints) in ${r.millis.toFixed(2)} ms`;
  body.replaceChildren(...r.spans.map((sp) => el('tr', { data: { start: String(sp.codeStart), end: String(sp.codeEnd) } },
    el('td', {}, el('span', { class: 'chunk', style: { background: color(sp.label) } }, text.slice(sp.start, sp.end))),
    el('td', { class: 'label' }, sp.label),
    el('td', {}, String(sp.codeStart)),
    el('td', {}, String(sp.codeEnd)),
    el('td', {}, `${sp.startByte}-${sp.endByte}`),
    el('td', { class: 'marginal', data: { p: String(sp.confidence) } },
      el('span', { class: 'bar', style: { width: `${Math.round(sp.confidence * 60)}px` } }), fmtP(sp.confidence)))));
}

// chunks renders the tagged sentence: IOB chunks as colored spans with
// their type, other labels as word/label.
function chunks(r, text) {
  const out = [];
  const word = (t) => text.slice(r.start[t], r.end[t]) || r.tokens[t];
  const iob = r.labels.every((l) => l === 'O' || /^[BI]-/.test(l));
  if (!iob) {
    return r.tokens.map((tok, t) => el('span', { class: 'chunk', style: { background: color(r.labels[t]) } },
      word(t), el('sub', {}, r.labels[t])));
  }
  let t = 0;
  while (t < r.labels.length) {
    const l = r.labels[t];
    if (l === 'O') { out.push(el('span', { class: 'chunk o' }, word(t)), ' '); t++; continue; }
    const type = l.slice(2);
    let u = t + 1;
    while (u < r.labels.length && r.labels[u] === 'I-' + type) u++;
    const words = [];
    for (let v = t; v < u; v++) words.push(word(v));
    out.push(el('span', { class: 'chunk', data: { type }, style: { background: color(type) } },
      words.join(' '), el('sub', {}, type)), ' ');
    t = u;
  }
  return out;
}

// color gives each chunk type or label a light color of its own.
function color(s) {
  let h = 0;
  for (const ch of s) h = (h * 31 + ch.codePointAt(0)) % 360;
  return `hsl(${h}, 70%, 88%)`;
}

start().catch((e) => {
  app.error = String(e && e.message || e);
  $('status').textContent = 'The tagger could not start: ' + app.error;
  $('status').className = 'error';
});
})();
