// The HTML trace's page (html_sink.cpp writes kViewerHead, the data as `MINICUDA_TRACE`, then
// kViewerBody): style and code inline, so the file opens with no network. The data is an array
// of records: calls {k:"c", seq, parent, root, th, l, t, r, h0, h1} and notes {k:"n", ...} in the
// trace's own terms, and device spans {k:"s", seq, u, n, ch, o, s0, s1, a} (o: the submitting
// call; a: the span's args, a PTX grid's counters, shown one per line in the span's tooltip).
// The page draws the timeline (svg#timeline: g.track per host thread and per engine, rect.call-span
// and rect.gpu-span, path.arrow from a call to the work it submitted) and the call tree
// (div#tree: div.row per call or note, hidden by layer with the checkboxes of div#layers).
#pragma once

namespace minicuda::trace {

inline constexpr const char* kViewerHead = R"HTML(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>minicuda trace</title>
<style>
body { font: 13px system-ui, sans-serif; margin: 12px; color: #222; }
h1 { font-size: 16px; margin: 0 0 6px; }
#layers label { margin-right: 12px; }
#timeline { border: 1px solid #ccc; background: #fafafa; }
.lane { fill: #fff; stroke: #e4e4e4; }
.track-name { font-size: 12px; fill: #333; }
.call-span { fill: #6b8fd6; stroke: #fff; stroke-width: 0.5; }
.gpu-span { fill: #e39b3b; }
.gpu-span.compute { fill: #4aa36c; }
.arrow { stroke: #888; stroke-width: 1; fill: none; }
.tick { font-size: 10px; fill: #777; }
#tree { font: 12px ui-monospace, monospace; margin-top: 10px; max-height: 60vh; overflow: auto; border: 1px solid #ccc; }
.row { white-space: pre; padding: 1px 4px; cursor: default; }
.row .seq { color: #999; display: inline-block; width: 4.5em; }
.row .layer { display: inline-block; width: 5.5em; color: #555; }
.row.note { color: #666; }
.row.hit { background: #fff3b0; }
</style></head><body>
<h1>minicuda trace</h1>
<div id="layers">layers: </div>
<svg id="timeline" xmlns="http://www.w3.org/2000/svg"></svg>
<div id="tree"></div>
)HTML";

inline constexpr const char* kViewerBody = R"HTML(<script>
(function () {
  const data = MINICUDA_TRACE;
  const rows = data.filter(d => d.k === 'c' || d.k === 'n').sort((a, b) => a.seq - b.seq);
  const spans = data.filter(d => d.k === 's');
  const bySeq = new Map(rows.map(d => [d.seq, d]));
  const depth = d => { let n = 0, p = d.parent; while (p && bySeq.has(p) && n < 64) { n++; p = bySeq.get(p).parent; } return n; };

  // Folding by layer: a checkbox per layer hides that layer's rows.
  const style = document.createElement('style');
  document.head.appendChild(style);
  const hidden = new Set();
  const layers = [...new Set(rows.map(d => d.l))];
  const controls = document.getElementById('layers');
  for (const layer of layers) {
    const label = document.createElement('label');
    const box = document.createElement('input');
    box.type = 'checkbox'; box.checked = true; box.dataset.layer = layer;
    box.addEventListener('change', () => {
      if (box.checked) hidden.delete(layer); else hidden.add(layer);
      style.textContent = [...hidden].map(l => `.row.L-${l} { display: none; }`).join('\n');
    });
    label.append(box, ' ' + layer);
    controls.appendChild(label);
  }

  // The call tree.
  const tree = document.getElementById('tree');
  const rowOf = new Map();
  for (const d of rows) {
    const row = document.createElement('div');
    row.className = 'row L-' + d.l + (d.k === 'n' ? ' note' : '');
    row.style.paddingLeft = (4 + 14 * depth(d)) + 'px';
    const seq = document.createElement('span'); seq.className = 'seq'; seq.textContent = '#' + d.root;
    const layer = document.createElement('span'); layer.className = 'layer'; layer.textContent = d.l;
    row.append(seq, layer, d.t + (d.k === 'c' && d.r ? ' = ' + d.r : ''));
    tree.appendChild(row);
    rowOf.set(d.seq, row);
  }

  // The timeline: host threads' calls, then the engines' work, on one simulated clock.
  const svgNS = 'http://www.w3.org/2000/svg';
  const svg = document.getElementById('timeline');
  const el = (name, attrs, parent) => {
    const e = document.createElementNS(svgNS, name);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    parent.appendChild(e);
    return e;
  };
  const roots = rows.filter(d => d.k === 'c' && d.parent === 0 && d.h1 > d.h0);
  const threads = [...new Set(roots.map(d => d.th))].sort((a, b) => a - b);
  const order = ['compute', 'ce0', 'ce1', 'ce2'];
  const units = [...new Set(spans.map(s => s.u))].sort((a, b) => (order.indexOf(a) + 99) % 99 - (order.indexOf(b) + 99) % 99);
  const tracks = threads.map(t => ({ name: 'host thread ' + t, host: t })).concat(units.map(u => ({ name: u, unit: u })));
  const end = Math.max(1, ...roots.map(d => d.h1), ...spans.map(s => s.s1));
  const left = 110, width = 1100, laneH = 26, top = 22;
  svg.setAttribute('width', left + width + 10);
  svg.setAttribute('height', top + laneH * tracks.length + 8);
  const x = t => left + width * t / end;
  const defs = el('defs', {}, svg);
  const marker = el('marker', { id: 'head', markerWidth: 6, markerHeight: 6, refX: 5, refY: 3, orient: 'auto' }, defs);
  el('path', { d: 'M0,0 L6,3 L0,6 z', fill: '#888' }, marker);
  for (let k = 0; k < 10; k++) {
    const t = end * k / 10;
    const tick = el('text', { class: 'tick', x: x(t), y: 12 }, svg);
    tick.textContent = (t / 1000).toFixed(1) + ' µs';
  }
  const laneY = new Map();
  tracks.forEach((track, k) => {
    const g = el('g', { class: 'track', 'data-name': track.name }, svg);
    const y = top + k * laneH;
    el('rect', { class: 'lane', x: left, y, width, height: laneH - 4 }, g);
    el('text', { class: 'track-name', x: 4, y: y + 15 }, g).textContent = track.name;
    laneY.set(track.host !== undefined ? 'h' + track.host : 'u' + track.unit, y);
  });
  const callBox = new Map();
  for (const d of roots) {
    const y = laneY.get('h' + d.th);
    const r = el('rect', { class: 'call-span', x: x(d.h0), y: y + 3, width: Math.max(1, x(d.h1) - x(d.h0)), height: laneH - 10 }, svg);
    el('title', {}, r).textContent = `#${d.seq} ${d.t} = ${d.r}`;
    callBox.set(d.seq, { x: x(d.h0), y: y + laneH / 2 - 2 });
  }
  for (const s of spans) {
    const y = laneY.get('u' + s.u);
    const r = el('rect', { class: 'gpu-span ' + s.u, x: x(s.s0), y: y + 3, width: Math.max(1, x(s.s1) - x(s.s0)), height: laneH - 10 }, svg);
    el('title', {}, r).textContent = `${s.n} on ${s.u}, channel ${s.ch}, t=${s.s0}..${s.s1} ns, from #${s.o}` +
      Object.entries(s.a || {}).map(([k, v]) => `\n${k}: ${v}`).join('');
    r.addEventListener('click', () => {
      for (const row of tree.querySelectorAll('.hit')) row.classList.remove('hit');
      const row = rowOf.get(s.o);
      if (row) { row.classList.add('hit'); row.scrollIntoView({ block: 'center' }); }
    });
    const from = callBox.get(s.o);
    if (from) el('path', { class: 'arrow', d: `M${from.x},${from.y} L${x(s.s0)},${y + laneH / 2 - 2}`, 'marker-end': 'url(#head)' }, svg);
  }
  document.body.dataset.drawn = `${tracks.length} tracks, ${roots.length} calls, ${spans.length} spans`;
})();
</script>
</body></html>
)HTML";

}  // namespace minicuda::trace
