// The HTML report's script: turns the run's view model (the JSON in #iolab-data, written by
// report/html.cpp) into Chart.js charts and sortable tables. Every chart is drawn by Chart.js;
// this file only says what to draw: the figures, the violins' outlines and what each cell sorts
// by come in the model. Text is set with textContent, never parsed as HTML.
(function () {
  'use strict';
  const model = JSON.parse(document.getElementById('iolab-data').textContent);
  const root = document.getElementById('report');

  Chart.defaults.animation = false;
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", sans-serif';
  Chart.defaults.color = '#2d3748';
  Chart.defaults.maintainAspectRatio = false;

  const STATUS = {
    answer: { colour: '#2f855a', text: 'the answer (picked in the winner group)' },
    verified: { colour: '#2b6cb0', text: 'verified' },
    unverified: { colour: '#dd8a1f', text: 'unverified (output not checked)' },
    unstable: { colour: '#d69e2e', text: 'varies over ±10% (ranked: its comparisons carry its spread)' },
    unranked: { colour: '#a0aec0', text: 'not ranked (no figure, or cold state not proven)' },
    failed: { colour: '#c53030', text: 'failed' },
    skipped: { colour: '#718096', text: 'skipped' },
  };
  const VERDICT = { 'HOLDS': '#2f855a', 'DOES NOT HOLD': '#c53030', 'INCONCLUSIVE': '#b7791f' };
  const INTERVAL = '#1a202c';
  const MEDIAN_CI = Math.round(model.confidence.median * 100) + '% interval';
  const RATIO_CI = Math.round(model.confidence.ratio * 100) + '% interval';
  // The fewest samples a case's violin is drawn from.
  const VIOLIN_MIN = model.violin_min;
  const CHANGE = { faster: '#2f855a', slower: '#c53030', same: '#718096', too_few: '#a0aec0' };

  // What the report drew, for the browser test: one entry per chart.
  const drawn = [];

  function el(tag, attrs, children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') e.textContent = v;
      else e.setAttribute(k, v);
    }
    for (const c of children || []) if (c) e.appendChild(c);
    return e;
  }

  function mib(x) {
    if (x == null) return '-';
    return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toPrecision(3);
  }

  function bytes(n) {
    const units = ['B', 'K', 'M', 'G', 'T'];
    let i = 0;
    while (n >= 1024 && n % 1024 === 0 && i < units.length - 1) {
      n /= 1024;
      i++;
    }
    return n + (i ? units[i] : ' B');
  }

  function ratio(x) {
    return x >= 10 ? x.toFixed(0) + 'x' : x.toFixed(2) + 'x';
  }

  // The smallest and largest of many numbers (no spread: a call takes only so many arguments).
  function lowest(xs) {
    return xs.reduce((a, x) => (x != null && x < a ? x : a), Infinity);
  }
  function highest(xs) {
    return xs.reduce((a, x) => (x != null && x > a ? x : a), -Infinity);
  }

  // The height of a chart of n rows: a browser draws no canvas taller than some 32000 pixels,
  // so thousands of rows share the largest height that is drawn.
  function rowsHeight(n, perRow, extra) {
    return Math.min(extra + perRow * n, 16000);
  }

  // A violin's outline (points x with half-width d) as a closed shape around row i: below, then back above.
  function violinShape(outline, i) {
    return outline.map((p) => ({ x: p.x, y: i - p.d })).concat(outline.slice().reverse().map((p) => ({ x: p.x, y: i + p.d })));
  }

  function short(text, n) {
    return text.length > n ? text.slice(0, n - 1) + '…' : text;
  }

  // A chart taller than this many pixels (a laptop's screen) has its value axis at its top too.
  const TALL = 900;

  // A chart in a box of the given height, added to `parent` before Chart.js draws it.
  function chart(parent, kind, title, height, config, marks) {
    const canvas = el('canvas', { 'data-kind': kind, role: 'img', 'aria-label': title });
    const box = el('div', { class: 'chart', style: 'height:' + height + 'px' }, [canvas]);
    parent.appendChild(el('figure', {}, [el('figcaption', { text: title }), box]));
    config.options = config.options || {};
    config.options.plugins = Object.assign({ legend: { position: 'bottom' } }, config.options.plugins);
    const c = new Chart(canvas, config);
    // Taller than a screen: its value axis again at the top, over the same range, so that a reader
    // in the middle of it sees one.
    if (height > TALL && c.scales.x && c.scales.x.position === 'bottom') {
      const x = c.scales.x, given = (config.options.scales || {}).x || {};
      config.options.scales = Object.assign({}, config.options.scales, {
        xTop: { type: x.type, position: 'top', min: x.min, max: x.max, grid: { drawOnChartArea: false },
          ticks: given.ticks || {}, afterBuildTicks: given.afterBuildTicks } });
      c.options.scales = config.options.scales;
      c.update('none');
    }
    drawn.push({ kind: kind, title: title, marks: marks, chart: c, canvas: canvas });
    return c;
  }

  // A throughput axis: linear, or logarithmic where the fastest case's median is over 50x the
  // slowest's (a byte-at-a-time case beside chunked reads would otherwise be a bar of no width);
  // `drawn` (samples, interval ends) only widens its range.
  function throughputAxis(medians, drawn) {
    const m = medians.filter((x) => x != null && x > 0);
    const lo = lowest(m), hi = highest(m);
    if (!m.length || hi / lo <= 50) return { beginAtZero: true, title: { display: true, text: 'MiB/s' } };
    const low = Math.min(lo, lowest(drawn.filter((x) => x != null && x > 0)));
    return {
      type: 'logarithmic',
      min: low / 2,
      ticks: { maxRotation: 0, callback: (x) => (/^10*$/.test(String(x)) ? x.toLocaleString('en') : '') },
      title: { display: true, text: 'MiB/s (logarithmic: the fastest median is ' + ratio(hi / lo) + ' the slowest)' },
    };
  }

  function suffix(c) {
    return c.status === 'failed' ? ' (failed)' : c.status === 'skipped' ? ' (skipped)'
      : c.status === 'unranked' ? ' (not ranked)' : c.status === 'unstable' ? ' (varies)' : '';
  }

  // How a case's bar is drawn: the answer's case stands out.
  function barStatus(c) {
    return c.pick ? 'answer' : c.status;
  }

  // Ranked throughput bars with the median's interval as whiskers and each ceiling as a line.
  function rankedChart(parent, s) {
    const cases = s.cases;
    const labels = cases.map((c) => (c.rank && c.rank !== '-' ? c.rank + ' ' : '') + short(c.label, 60) + suffix(c));
    const datasets = [];
    for (const st of ['answer', 'verified', 'unverified', 'unstable', 'unranked']) {
      if (!cases.some((c) => barStatus(c) === st)) continue;
      datasets.push({
        label: STATUS[st].text,
        data: cases.map((c) => (barStatus(c) === st ? c.mib_s : null)),
        backgroundColor: STATUS[st].colour,
        grouped: false,
        barPercentage: 0.8,
        order: 2,
      });
    }
    if (cases.some((c) => c.low != null)) {
      datasets.push({
        label: MEDIAN_CI + ' of the median',
        guide: true,
        data: cases.map((c) => (c.low != null && c.high != null ? [c.low, c.high] : null)),
        backgroundColor: INTERVAL,
        grouped: false,
        barPercentage: 0.12,
        order: 1,
      });
    }
    for (const st of ['failed', 'skipped']) {
      if (cases.some((c) => c.status === st))
        datasets.push({ label: STATUS[st].text + ' (no bar)', data: [], backgroundColor: STATUS[st].colour });
    }
    // The axis ends just past the bars and their whiskers, and never past twice the largest bar: a
    // limit beyond it never sets the axis, it is drawn as a marker at the edge.
    const bars = cases.map((c) => c.mib_s).filter((x) => x != null && x > 0);
    const ends = cases.map((c) => (c.high != null ? c.high : c.mib_s)).filter((x) => x != null && x > 0);
    const roundUp = (x) => {  // to two significant figures: 22128 -> 23000
      const unit = Math.pow(10, Math.floor(Math.log10(x)) - 1);
      return Math.ceil(x / unit) * unit;
    };
    const axisMax = bars.length ? Math.min(2 * highest(bars), roundUp(1.1 * highest(ends))) : null;
    const limitColours = ['#805ad5', '#d53f8c', '#319795', '#975a16', '#4a5568'];
    (s.limits || []).forEach((l, i) => {
      const off = axisMax != null && l.mib_s > axisMax;
      datasets.push({
        type: 'line',
        label: 'limit: ' + l.label + ' (' + mib(l.mib_s) + ' MiB/s' + (off ? ', off the scale: ▶ at the edge' : '') + ')',
        guide: true,
        data: [{ x: off ? axisMax : l.mib_s, y: labels[0] }, { x: off ? axisMax : l.mib_s, y: labels[labels.length - 1] }],
        borderColor: limitColours[i % limitColours.length],
        backgroundColor: limitColours[i % limitColours.length],
        borderDash: off ? [] : [6, 4],
        borderWidth: off ? 0 : 2,
        showLine: !off,
        pointStyle: off ? 'triangle' : 'line',
        rotation: 90,
        pointRadius: off ? 7 : 0,
        clip: false,
        indexAxis: 'y',
        order: 0,
      });
    });
    const ok = cases.filter((c) => c.mib_s != null).length;
    chart(parent, 'ranked', 
      'throughput, MiB/s (median of the samples; whiskers: its ' + MEDIAN_CI + ')',
      rowsHeight(cases.length, 26, 70), {
        type: 'bar',
        data: { labels: labels, datasets: datasets },
        options: {
          indexAxis: 'y',
          scales: {
            x: Object.assign(throughputAxis(cases.map((c) => c.mib_s), cases.map((c) => c.low)), axisMax != null ? { max: axisMax } : {}),
            y: {
              ticks: {
                autoSkip: cases.length > 400,
                color: (ctx) => {
                  const c = cases[ctx.index];
                  return c && (c.status === 'failed' || c.status === 'skipped') ? STATUS[c.status].colour : '#2d3748';
                },
              },
            },
          },
          plugins: {
            tooltip: {
              callbacks: {
                label: (ctx) => {
                  const c = cases[ctx.dataIndex];
                  if (ctx.dataset.type === 'line' || !c || c.mib_s == null) return ctx.dataset.label;
                  const iv = c.low != null ? ' [' + mib(c.low) + ', ' + mib(c.high) + ']' : ' (no interval: n=' + c.n + ')';
                  return mib(c.mib_s) + ' MiB/s' + iv;
                },
              },
            },
          },
        },
      }, ok);
  }

  // Every sample of every case as a point, one row per case, with its median as a tick, over the
  // violin of its samples where it has at least 10.
  function samplesChart(parent, s) {
    const cases = s.cases.filter((c) => c.samples && c.samples.length);
    if (!cases.length) return;
    const datasets = [];
    let points = 0;
    for (const st of ['verified', 'unverified', 'unstable', 'unranked']) {
      const data = [];
      cases.forEach((c, i) => {
        if (c.status !== st) return;
        // A fixed spread inside the row (not random: the same report draws the same picture).
        c.samples.forEach((v, k) => data.push({ x: v, y: i + (((k * 7) % 11) / 11 - 0.5) * 0.5 }));
      });
      if (!data.length) continue;
      points += data.length;
      datasets.push({ label: STATUS[st].text + ' sample', data: data, backgroundColor: STATUS[st].colour + '99',
        pointRadius: 3 });
    }
    datasets.push({
      label: 'median',
      data: cases.map((c, i) => ({ x: c.mib_s, y: i })),
      pointStyle: 'line',
      rotation: 90,
      pointRadius: 10,
      borderWidth: 2,
      borderColor: INTERVAL,
      backgroundColor: INTERVAL,
    });
    let violins = 0;
    cases.forEach((c, i) => {
      if (!c.violin) return;
      const outline = c.violin;
      const colour = (STATUS[c.status] || STATUS.verified).colour;
      datasets.push({
        type: 'line',
        label: 'density of the samples (violin, cases of ' + VIOLIN_MIN + ' or more)',
        violin: c.label,
        guide: true,
        data: violinShape(outline, i),
        fill: 'shape',
        showLine: true,
        pointRadius: 0,
        borderWidth: 1,
        borderColor: colour + '88',
        backgroundColor: colour + '22',
        order: 10,
      });
      violins++;
    });
    const c = chart(parent, 'samples', 'every measured sample, MiB/s, over the density of its case (the spread is noise; outliers stand apart)',
      rowsHeight(cases.length, 26, 70), {
        type: 'scatter',
        data: { datasets: datasets },
        options: {
          scales: {
            x: throughputAxis(cases.map((c) => c.mib_s), cases.map((c) => c.samples).flat()),
            y: {
              reverse: true,
              min: -0.5,
              max: cases.length - 0.5,
              afterBuildTicks: (axis) => {
                axis.ticks = cases.map((c, i) => ({ value: i }));
              },
              ticks: { autoSkip: cases.length > 400, callback: (v) => (cases[v] ? short(cases[v].label, 60) : '') },
              grid: { display: false },
            },
          },
          plugins: {
            // One legend entry for every violin.
            legend: { position: 'bottom', labels: { filter: (item, data) => {
              const ds = data.datasets[item.datasetIndex];
              return !ds.violin || data.datasets.findIndex((d) => d.violin) === item.datasetIndex;
            } } },
          },
        },
      }, points + cases.length);
    drawn[drawn.length - 1].violins = violins;
    return c;
  }

  // One case's samples in the order they were measured: drift, a slow first iteration or a busy
  // neighbour halfway through show as a slope or a step. A menu picks the case.
  function orderChart(parent, s) {
    const cases = s.cases.filter((c) => c.samples && c.samples.length && c.order);
    if (!cases.length) return;
    const first = Math.max(0, cases.findIndex((c) => c.pick));
    const menu = el('select', { 'aria-label': 'the case whose samples are drawn in order', class: 'order-case' },
      cases.map((c, i) => el('option', { value: String(i), text: c.label + suffix(c) })));
    menu.value = String(first);
    const box = el('div', { class: 'order' }, [
      el('p', { class: 'order-pick' }, [document.createTextNode('samples in measured order of '), menu])]);
    parent.appendChild(box);
    const dataFor = (c) => {
      const line = c.order.map((v, k) => ({ x: k + 1, y: v }));
      return [
        { label: 'each iteration (= round: every case once a round, in a shuffled order)', data: line, showLine: true,
          borderColor: '#2b6cb0', backgroundColor: '#2b6cb0', pointRadius: 3, borderWidth: 1 },
        { label: 'median', data: [{ x: 1, y: c.mib_s }, { x: Math.max(2, line.length), y: c.mib_s }], showLine: true,
          borderColor: INTERVAL, borderDash: [6, 4], pointRadius: 0, borderWidth: 1.5 },
      ];
    };
    const titleOf = (c) => 'samples of ' + c.label + ' in measured order, MiB/s against iteration';
    const c0 = cases[first];
    const ch = chart(box, 'order', titleOf(c0), 300, {
      type: 'scatter',
      data: { datasets: dataFor(c0) },
      options: {
        scales: {
          x: { min: 1, max: Math.max(2, c0.order.length), title: { display: true, text: 'iteration' }, ticks: { precision: 0 } },
          y: { beginAtZero: true, title: { display: true, text: 'MiB/s' } },
        },
      },
    }, c0.samples.length + 2);
    const entry = drawn[drawn.length - 1];
    entry.order = { cases: cases.length, label: c0.label, samples: c0.samples.length };
    menu.addEventListener('change', () => {
      const c = cases[Number(menu.value)];
      ch.data.datasets = dataFor(c);
      ch.options.scales.x.max = Math.max(2, c.order.length);
      ch.update();
      entry.marks = c.samples.length + 2;
      entry.order = { cases: cases.length, label: c.label, samples: c.samples.length };
      const cap = ch.canvas.closest('figure').querySelector('figcaption');
      cap.textContent = titleOf(c);
    });
  }

  // Throughput against buffer size on a logarithmic axis, one line per strategy, knees marked.
  // jobs: the sweep is over job counts (aggregate throughput) instead of buffer sizes.
  function sweepChart(parent, sweeps, jobs) {
    if (!sweeps.length) return;
    const what = jobs ? 'the fewest jobs' : 'the smallest buffer';
    const palette = ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5', '#d53f8c', '#319795', '#975a16', '#4a5568'];
    const datasets = [];
    let lo = Infinity, hi = 0, marks = 0;
    const knees = [];
    sweeps.forEach((sw, i) => {
      const colour = palette[i % palette.length];
      datasets.push({
        type: 'line',
        label: short(sw.key, 70),
        data: sw.points.map((p) => ({ x: p.x, y: p.mib_s })),
        borderColor: colour,
        backgroundColor: colour,
        pointRadius: 3,
      });
      marks += sw.points.length;
      for (const p of sw.points) {
        lo = Math.min(lo, p.x);
        hi = Math.max(hi, p.x);
      }
      const p = sw.points.find((q) => q.x === sw.knee);
      if (p) knees.push({ x: p.x, y: p.mib_s, colour: colour, fraction: sw.fraction });
    });
    if (knees.length) {
      marks += knees.length;
      datasets.push({
        type: 'scatter',
        label: knees.every((k) => k.fraction === knees[0].fraction)
          ? 'knee: ' + what + ' within ' + Math.round((1 - knees[0].fraction) * 100) + '% of its line\'s best'
          : 'knee: ' + what + ' near its line\'s best (the suite\'s fraction)',
        data: knees.map((k) => ({ x: k.x, y: k.y })),
        pointStyle: 'triangle',
        pointRadius: 9,
        backgroundColor: knees.map((k) => k.colour),
        borderColor: INTERVAL,
        borderWidth: 1,
      });
    }
    chart(parent, jobs ? 'jobs' : 'sweep',
      jobs ? 'aggregate throughput against the number of jobs (logarithmic axis)'
        : 'throughput against buffer size (logarithmic axis)', 380, {
      type: 'line',
      data: { datasets: datasets },
      options: {
        parsing: true,
        scales: {
          x: {
            type: 'logarithmic',
            min: lo / 1.25,
            max: hi * 1.25,
            title: { display: true, text: jobs ? 'jobs at once' : 'buffer size' },
            afterBuildTicks: (axis) => {
              const ticks = [];
              if (jobs) {
                // The job counts measured, whatever they are (1,3,6 as well as 1,2,4,8).
                const counts = new Set(sweeps.map((sw) => sw.points.map((p) => p.x)).flat());
                axis.ticks = Array.from(counts).sort((a, b) => a - b).map((v) => ({ value: v }));
                return;
              }
              for (let v = lo; v <= hi; v *= 2) ticks.push({ value: v });
              const step = Math.ceil(ticks.length / 12);
              axis.ticks = ticks.filter((t, i) => i % step === 0);
            },
            ticks: { callback: (v) => (jobs ? String(v) : bytes(v)) },
          },
          y: { beginAtZero: true, title: { display: true, text: 'MiB/s' } },
        },
      },
    }, marks);
  }

  // The read and write events of a recorded copy: one row per thread and kind, time across.
  function timelineChart(parent, t) {
    const rows = [];
    const key = (e) => 'thread ' + (e[0] + 1) + ' ' + e[1] + 's';
    for (const e of t.events) if (!rows.includes(key(e))) rows.push(key(e));
    const datasets = ['read', 'write'].map((kind) => ({
      label: kind + 's',
      data: t.events.filter((e) => e[1] === kind).map((e) => ({ y: key(e), x: [e[2], Math.max(e[3], e[2] + 1e-3)] })),
      backgroundColor: kind === 'read' ? '#3182ce99' : '#e53e3e99',
      grouped: false,
      barPercentage: 0.9,
      categoryPercentage: 0.9,
    }));
    const every = t.stride > 1 ? ' (1 in ' + t.stride + ' of its ' + t.intervals + ' reads and writes)' : '';
    chart(parent, 'timeline', 'timeline of ' + t.label + every + ': ' + t.summary, 90 + 40 * rows.length, {
      type: 'bar',
      data: { labels: rows, datasets: datasets },
      options: {
        indexAxis: 'y',
        scales: { x: { title: { display: true, text: 'ms since the first event' } } },
      },
    }, t.events.length);
  }

  // Text cut into lines of at most n characters at spaces: a chart's label shows a whole claim.
  function wrap(text, n) {
    const lines = [];
    let line = '';
    for (const word of text.split(' ')) {
      if (line && line.length + 1 + word.length > n) {
        lines.push(line);
        line = word;
      } else {
        line = line ? line + ' ' + word : word;
      }
    }
    if (line) lines.push(line);
    return lines;
  }

  // For every finding: the published ratio and the measured one with its interval, on a
  // logarithmic axis, coloured by verdict, and the threshold the claim is judged against.
  function replicationChart(parent, findings) {
    const shown = findings.filter((f) => f.measured != null || f.published != null);
    if (!shown.length) return;
    const labels = shown.map((f) => wrap(f.claim, 60));
    const lines = labels.reduce((a, l) => a + l.length, 0);
    // Each claim's threshold: one mark (needs >= N) or two (within N either way).
    const thresholds = [];
    shown.forEach((f, i) => {
      if (f.at_least != null) thresholds.push({ x: f.at_least, y: i, text: f.threshold });
      if (f.within != null) {
        thresholds.push({ x: f.within, y: i, text: f.threshold });
        thresholds.push({ x: 1 / f.within, y: i, text: f.threshold });
      }
    });
    let top = 0, bottom = Infinity;
    for (const f of shown)
      for (const v of [f.measured, f.published, f.low, f.high, f.at_least, f.within, f.within ? 1 / f.within : null])
        if (v != null) {
          top = Math.max(top, v);
          bottom = Math.min(bottom, v);
        }
    // Ratios are from 1e-9 to 1e9 (the reader refuses others); the axis stays inside them.
    const right = Math.min(top * 2, 1e9), left = Math.max(Math.min(bottom / 2, 0.5), 1e-9);
    const colours = shown.map((f) => VERDICT[f.verdict] || '#4a5568');
    const measured = shown.filter((f) => f.measured != null).length;
    const published = shown.filter((f) => f.published != null).length;
    chart(parent, 'replication',
      'published ratio (×) against the ratio measured here (●, with its ' + RATIO_CI + '), coloured by verdict; | the threshold each claim needs',
      Math.min(rowsHeight(shown.length, 28, 100) + 14 * lines, 16000), {
        type: 'bar',
        data: {
          labels: shown.map((f, i) => i),
          datasets: [
            {
              label: RATIO_CI + ' of the measured ratio',
              guide: true,
              data: shown.map((f) => (f.low != null ? [f.low, f.high != null ? f.high : right] : null)),
              backgroundColor: colours.map((c) => c + '55'),
              borderColor: colours,
              borderWidth: 1,
              grouped: false,
              barPercentage: 0.35,
              pointStyle: 'rect',
              order: 3,
            },
            {
              type: 'line',
              label: 'measured here',
              // One point per finding, x null where there is none: tooltips then name the right claim.
              data: shown.map((f, i) => ({ x: f.measured, y: i })),
              showLine: false,
              pointRadius: 6,
              pointStyle: 'circle',
              pointBackgroundColor: colours,
              backgroundColor: INTERVAL,
              pointBorderColor: INTERVAL,
              indexAxis: 'y',
              order: 1,
            },
            {
              type: 'line',
              label: 'published',
              data: shown.map((f, i) => ({ x: f.published, y: i })),
              showLine: false,
              pointStyle: 'crossRot',
              pointRadius: 8,
              borderWidth: 2,
              borderColor: INTERVAL,
              indexAxis: 'y',
              order: 0,
            },
            {
              type: 'line',
              label: 'threshold the claim needs (its row\'s "needs" in the table)',
              threshold: true,
              guide: true,
              data: thresholds.map((t) => ({ x: t.x, y: t.y })),
              showLine: false,
              pointStyle: 'line',
              rotation: 90,
              pointRadius: 13,
              borderWidth: 3,
              borderColor: '#6b46c1',
              backgroundColor: '#6b46c1',
              indexAxis: 'y',
              order: 2,
            },
          ],
        },
        options: {
          indexAxis: 'y',
          scales: {
            x: {
              type: 'logarithmic',
              min: left,
              max: right,
              title: { display: true, text: 'slower time / faster time (logarithmic)' },
              ticks: { maxRotation: 0, callback: (v) => (String(v).match(/^[125]0*$|^0\.[0]*[125]$/) ? v + 'x' : '') },
            },
            y: {
              type: 'category',
              labels: shown.map((f, i) => i),
              ticks: { autoSkip: shown.length > 400, color: (ctx) => colours[ctx.index], callback: (v, i) => labels[i] },
            },
          },
          plugins: {
            legend: { position: 'bottom', labels: { usePointStyle: true } },
            tooltip: {
              callbacks: {
                title: (items) => (shown[items[0].dataIndex] ? shown[items[0].dataIndex].claim : ''),
                label: (ctx) => {
                  if (ctx.dataset.threshold) return 'needs ' + thresholds[ctx.dataIndex].text;
                  return ctx.dataset.label + ': ' + (ctx.parsed.x != null ? ratio(ctx.parsed.x) : '-');
                },
              },
            },
          },
        },
      }, measured + published);
    drawn[drawn.length - 1].thresholds = thresholds.length;
    const legend = el('p', { class: 'verdicts' });
    for (const [v, c] of Object.entries(VERDICT)) {
      legend.appendChild(el('span', { class: 'swatch', style: 'background:' + c }));
      legend.appendChild(document.createTextNode(' ' + v + '  '));
    }
    parent.appendChild(legend);
  }

  // A run against another, case by case: each shared case's time ratio (after over before) with
  // its interval, coloured by verdict, on a logarithmic axis around 1, and the gate's threshold.
  function ratioChart(parent, cmp) {
    const rows = cmp.shared.filter((c) => c.ratio != null);
    if (!rows.length) return;
    const colour = rows.map((c) => CHANGE[c.change]);
    let lo = 1, hi = 1;
    for (const c of rows)
      for (const v of [c.ratio, c.low, c.high])
        if (v != null) {
          lo = Math.min(lo, v);
          hi = Math.max(hi, v);
        }
    const labels = rows.map((c) => short(c.label, 60));
    const datasets = [
      { label: RATIO_CI + ' of the ratio', guide: true, data: rows.map((c) => (c.low != null ? [c.low, c.high] : null)),
        backgroundColor: colour.map((c) => c + '55'), borderColor: colour, borderWidth: 1, grouped: false,
        barPercentage: 0.4, pointStyle: 'rect', order: 2 },
      { type: 'line', label: 'time ratio, after / before (below 1: faster)', data: rows.map((c, i) => ({ x: c.ratio, y: labels[i] })),
        showLine: false, pointRadius: 5, pointBackgroundColor: colour, pointBorderColor: INTERVAL, indexAxis: 'y', order: 1 },
      { type: 'line', label: 'no change', guide: true, data: [{ x: 1, y: labels[0] }, { x: 1, y: labels[labels.length - 1] }],
        borderColor: INTERVAL, borderWidth: 1, pointRadius: 0, pointStyle: 'line', indexAxis: 'y', order: 0 },
    ];
    if (cmp.threshold >= 0)
      datasets.push({ type: 'line', label: 'the gate: slower by ' + Math.round(cmp.threshold * 1000) / 10 + '%', guide: true,
        data: [{ x: 1 + cmp.threshold, y: labels[0] }, { x: 1 + cmp.threshold, y: labels[labels.length - 1] }],
        borderColor: CHANGE.slower, borderDash: [6, 4], borderWidth: 2, pointRadius: 0, pointStyle: 'line', indexAxis: 'y',
        order: 0 });
    // Beyond the gate's threshold, the band where a case's whole interval fails the gate, shaded.
    let band = 0;
    const gateBand = {
      id: 'gate-band',
      beforeDatasetsDraw: (c) => {
        if (cmp.threshold < 0) return;
        const x = c.scales.x.getPixelForValue(1 + cmp.threshold), area = c.chartArea;
        if (!isFinite(x) || x >= area.right) return;
        c.ctx.save();
        c.ctx.fillStyle = CHANGE.slower + '1a';
        c.ctx.fillRect(Math.max(x, area.left), area.top, area.right - Math.max(x, area.left), area.bottom - area.top);
        c.ctx.restore();
        band = 1;
        drawn.filter((d) => d.chart === c).forEach((d) => { d.band = band; });
      },
    };
    chart(parent, 'ratios', cmp.after + ' against ' + cmp.before + ': time ratio per case with its ' + RATIO_CI +
      ' (green faster, red slower, grey ~' + (cmp.threshold >= 0 ? '; shaded: beyond the gate' : '') + ')',
      rowsHeight(rows.length, 26, 90), {
      type: 'bar',
      plugins: [gateBand],
      data: { labels: labels, datasets: datasets },
      options: {
        indexAxis: 'y',
        scales: {
          x: { type: 'logarithmic', min: Math.min(lo / 1.1, 0.9), max: Math.max(hi * 1.1, 1.1 + Math.max(0, cmp.threshold)),
            title: { display: true, text: 'time ratio, after / before (logarithmic)' },
            ticks: { maxRotation: 0, callback: (v) => (String(v).match(/^[125]0*$|^0\.[0]*[125]$|^0\.[5-9]$|^1\.[0-9]$/) ? v + 'x' : '') } },
          y: { ticks: { autoSkip: rows.length > 400 } },
        },
        plugins: { legend: { position: 'bottom', labels: { usePointStyle: true, filter: (item) => item.text !== 'no change' } } },
      },
    }, rows.length);
    drawn[drawn.length - 1].meant_band = cmp.threshold >= 0 ? 1 : 0;
    drawn[drawn.length - 1].band = band;
  }

  // The same as a table, the verdicts coloured, then the geometric mean and the cases only one run has.
  function changeTable(parent, cmp) {
    if (!cmp.shared.length) {
      parent.appendChild(el('p', { class: 'nothing-shared', text: cmp.lines[0] }));
    } else {
      const heads = ['case', 'MiB/s before', 'MiB/s after', 'time ratio', RATIO_CI, 'p (U test)', 'change'];
      const body = cmp.shared.map((c) => el('tr', { class: 'change-' + c.change + (c.tripped ? ' tripped' : '') }, [
        el('td', { class: 'left', text: c.label }),
        el('td', { text: mib(c.before) }),
        el('td', { text: mib(c.after) }),
        el('td', { class: 'ratio', 'data-ratio': String(c.ratio), text: c.ratio != null ? c.ratio.toFixed(3) : '-' }),
        el('td', { class: 'interval', text: c.low != null ? '[' + c.low.toFixed(3) + ', ' + c.high.toFixed(3) + ']' : '-' }),
        el('td', { class: 'p', text: c.p != null ? c.p.toPrecision(3) : '-' }),
        el('td', { class: 'left verdict', text: c.tripped ? 'slower, beyond the gate' : c.verdict }),
      ]));
      parent.appendChild(el('table', { class: 'changes' }, [
        el('thead', {}, [el('tr', {}, heads.map((h, i) => el('th', { text: h, class: i === 0 || i === 6 ? 'left' : '' })))]),
        el('tbody', {}, body)]));
      for (const l of cmp.lines) parent.appendChild(el('p', { class: 'note', text: l }));
      return;
    }
    for (const l of cmp.lines.slice(1)) parent.appendChild(el('p', { class: 'note', text: l }));
  }

  // Each case two runs share with VIOLIN_MIN samples or more on each side, as criterion.rs draws a
  // change: both runs' samples on one throughput axis, each over the violin of its density, the
  // earlier run's in one colour and the later's in another.
  function distributionsChart(parent, cmp) {
    const rows = cmp.distributions || [];
    if (!rows.length) return;
    const sides = [['before', cmp.before, '#718096'], ['after', cmp.after, '#2b6cb0']];
    const datasets = [];
    let points = 0, violins = 0;
    for (const [side, name, colour] of sides) {
      const data = [];
      rows.forEach((r, i) => r[side].samples.forEach((v, k) =>
        data.push({ x: v, y: i + (side === 'before' ? -0.12 : 0.12) + (((k * 7) % 11) / 11 - 0.5) * 0.12 })));
      points += data.length;
      datasets.push({ label: name + ': a sample', data: data, backgroundColor: colour + 'aa', pointRadius: 2.5 });
      rows.forEach((r, i) => {
        const outline = r[side].violin;
        datasets.push({
          type: 'line', label: name + ': the density of its samples', violin: r.label + ' ' + side, guide: true,
          data: violinShape(outline, i),
          fill: 'shape', showLine: true, pointRadius: 0, borderWidth: 1.5, borderColor: colour, backgroundColor: colour + '26',
          order: 10,
        });
        violins++;
      });
    }
    const all = rows.map((r) => r.before.samples.concat(r.after.samples)).flat();
    chart(parent, 'distributions', cmp.after + ' against ' + cmp.before +
      ': every sample of each shared case, MiB/s, over the density of its run (cases of ' + VIOLIN_MIN + ' samples or more a side)',
      rowsHeight(rows.length, 44, 90), {
        type: 'scatter',
        data: { datasets: datasets },
        options: {
          scales: {
            x: throughputAxis(rows.map((r) => r.after.mib_s).concat(rows.map((r) => r.before.mib_s)), all),
            y: {
              reverse: true, min: -0.5, max: rows.length - 0.5,
              afterBuildTicks: (axis) => { axis.ticks = rows.map((r, i) => ({ value: i })); },
              ticks: { autoSkip: rows.length > 400, callback: (v) => (rows[v] ? short(rows[v].label, 60) : '') },
              grid: { display: false },
            },
          },
          plugins: {
            // One legend entry for each run's violins.
            legend: { position: 'bottom', labels: { filter: (item, data) => {
              const ds = data.datasets[item.datasetIndex];
              return !ds.violin || data.datasets.findIndex((d) => d.label === ds.label) === item.datasetIndex;
            } } },
          },
        },
      }, points);
    drawn[drawn.length - 1].violins = violins;
  }

  // `said`: the verdict counts are already at the top of the page.
  function comparison(parent, cmp, said) {
    if (cmp.verdicts && !said) parent.appendChild(el('p', { class: 'verdicts', text: cmp.verdicts }));
    ratioChart(parent, cmp);
    distributionsChart(parent, cmp);
    changeTable(parent, cmp);
  }

  // Several runs side by side: each shared case's median throughput in every run.
  function comparisonChart(parent, cmp) {
    if (!cmp || !cmp.labels.length) return;
    const palette = ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5', '#d53f8c', '#319795', '#975a16', '#4a5568'];
    let marks = 0;
    const datasets = cmp.runs.map((r, i) => {
      marks += r.values.filter((v) => v).length;
      return {
        label: r.name,
        data: r.values.map((v) => (v ? v.mib_s : null)),
        backgroundColor: palette[i % palette.length],
      };
    });
    // Each bar's whisker: its median's interval, where it has one.
    let meant = 0, whiskerCount = 0;
    cmp.runs.forEach((r) => r.values.forEach((v) => { if (v && v.low != null && v.high != null) meant++; }));
    const whiskers = {
      id: 'whiskers',
      afterDatasetsDraw: (c) => {
        let n = 0;
        c.ctx.save();
        c.ctx.strokeStyle = INTERVAL;
        c.ctx.lineWidth = 1.5;
        cmp.runs.forEach((r, i) => c.getDatasetMeta(i).data.forEach((bar, j) => {
          const v = r.values[j];
          if (!v || v.low == null || v.high == null) return;
          const x1 = c.scales.x.getPixelForValue(v.low), x2 = c.scales.x.getPixelForValue(v.high), y = bar.y;
          if (!isFinite(x1) || !isFinite(x2) || !isFinite(y)) return;
          c.ctx.beginPath();
          c.ctx.moveTo(x1, y); c.ctx.lineTo(x2, y);
          c.ctx.moveTo(x1, y - 3); c.ctx.lineTo(x1, y + 3);
          c.ctx.moveTo(x2, y - 3); c.ctx.lineTo(x2, y + 3);
          c.ctx.stroke();
          n++;
        }));
        c.ctx.restore();
        whiskerCount = n;
        drawn.filter((d) => d.chart === c).forEach((d) => { d.whiskers = n; });
      },
    };
    chart(parent, 'comparison', 'the cases the runs share: median throughput in each run, MiB/s (whiskers: its ' + MEDIAN_CI + ')',
      rowsHeight(cmp.labels.length * cmp.runs.length, 16, 70), {
        type: 'bar',
        plugins: [whiskers],
        data: { labels: cmp.labels.map((l) => short(l, 60)), datasets: datasets },
        options: { indexAxis: 'y', scales: { x: { beginAtZero: true }, y: { ticks: { autoSkip: cmp.labels.length > 400 } } } },
      }, marks);
    drawn[drawn.length - 1].meant_whiskers = meant;
    drawn[drawn.length - 1].whiskers = whiskerCount;
  }

  // One case over the runs of its machine in a history: its median in each run (a point, whiskers
  // its interval), the line joining them (a gap where a run did not measure it), and the band of
  // the threshold around the latest median, shaded.
  function historyChart(parent, h, line, colour) {
    // The runs of its machine only, two lines a label: the run and commit, then its date.
    const mine = h.runs.map((r, i) => i).filter((i) => h.runs[i].machine === line.machine);
    const runs = mine.map((i) => ['#' + (i + 1) + (h.runs[i].commit ? ' ' + h.runs[i].commit.slice(0, 7) : ''),
      h.runs[i].date ? h.runs[i].date.slice(0, 10) : 'undated']);
    const points = mine.map((i) => line.points[i]);
    const latest = points.reduce((a, p) => (p ? p : a), null);
    const t = h.threshold;
    const band = latest ? [latest.mib_s / (1 + t), latest.mib_s * (1 + t)] : null;
    const ends = points.filter((p) => p).flatMap((p) => [p.mib_s, p.low, p.high]).concat(band || []).filter((x) => x != null && x > 0);
    const lo = lowest(ends), hi = highest(ends);
    const last = line.last;
    const flagged = (k) => last && last.beyond && mine[k] === last.to;
    let whiskerCount = 0, bandDrawn = 0;
    const decorations = {
      id: 'history-decorations',
      // The band, then the whiskers, under the points.
      beforeDatasetsDraw: (c) => {
        const area = c.chartArea;
        c.ctx.save();
        if (band) {
          const y1 = c.scales.y.getPixelForValue(band[1]), y2 = c.scales.y.getPixelForValue(band[0]);
          if (isFinite(y1) && isFinite(y2)) {
            c.ctx.fillStyle = colour + '22';
            c.ctx.fillRect(area.left, Math.max(area.top, y1), area.right - area.left, Math.min(area.bottom, y2) - Math.max(area.top, y1));
            bandDrawn = 1;
          }
        }
        let n = 0;
        c.ctx.lineWidth = 1.5;
        c.getDatasetMeta(0).data.forEach((pt, i) => {
          const p = points[i];
          if (!p || p.low == null || p.high == null) return;
          const y1 = c.scales.y.getPixelForValue(p.low), y2 = c.scales.y.getPixelForValue(p.high), x = pt.x;
          if (!isFinite(y1) || !isFinite(y2) || !isFinite(x)) return;
          c.ctx.strokeStyle = flagged(i) ? CHANGE[last.change] : INTERVAL;
          c.ctx.beginPath();
          c.ctx.moveTo(x, y1); c.ctx.lineTo(x, y2);
          c.ctx.moveTo(x - 4, y1); c.ctx.lineTo(x + 4, y1);
          c.ctx.moveTo(x - 4, y2); c.ctx.lineTo(x + 4, y2);
          c.ctx.stroke();
          n++;
        });
        c.ctx.restore();
        whiskerCount = n;
        drawn.filter((d) => d.chart === c).forEach((d) => { d.whiskers = n; d.band = bandDrawn; });
      },
    };
    const said = !last ? 'measured in one run here' : last.said + (last.ratio != null ? ' at its last change (time ratio ' + ratio(last.ratio) + ')' : '');
    const marks = points.filter((p) => p).length;
    chart(parent, 'history', short(line.label, 90) + (h.machines.length > 1 ? ' — machine ' + (line.machine + 1) : '') + ': ' + said +
      '; median MiB/s in each run, whiskers its ' + MEDIAN_CI + ', shaded ±' + h.band + ' of the latest',
      240, {
        type: 'line',
        plugins: [decorations],
        data: {
          labels: runs,
          datasets: [
            { label: 'median MiB/s', data: points.map((p) => (p ? p.mib_s : null)),
              borderColor: colour, backgroundColor: colour, spanGaps: false, pointRadius: points.map((p, i) => (flagged(i) ? 6 : 4)),
              pointBackgroundColor: points.map((p, i) => (flagged(i) ? CHANGE[last.change] : colour)),
              pointBorderColor: points.map((p, i) => (flagged(i) ? CHANGE[last.change] : colour)) },
          ],
        },
        options: {
          scales: {
            y: { suggestedMin: lo / 1.05, suggestedMax: hi * 1.05, title: { display: true, text: 'MiB/s' } },
            x: { offset: true, ticks: { maxRotation: 0, autoSkip: h.runs.length > 12 } },
          },
          plugins: { legend: { display: false } },
        },
      }, marks);
    const d = drawn[drawn.length - 1];
    d.meant_whiskers = points.filter((p) => p && p.low != null && p.high != null).length;
    d.meant_band = band ? 1 : 0;
    d.whiskers = whiskerCount;
    d.band = bandDrawn;
  }

  // Many runs over time: what changed first, then each case's chart, then the runs.
  function history(h) {
    const section = el('section', { class: 'history' });
    root.appendChild(section);
    // The runs and machines, and how many cases changed, in bold; how a change is told, as a note.
    h.notes.forEach((n, i) => section.appendChild(el('p', { class: i < h.notes.length - 1 ? 'verdicts' : 'note', text: n })));
    if (h.changes.rows.length) {
      section.appendChild(el('h2', { text: h.changes.title }));
      table(section, h.changes);
    }
    section.appendChild(el('h2', { text: 'Each case over the runs' }));
    const palette = ['#2b6cb0', '#dd6b20', '#38a169', '#805ad5', '#d53f8c', '#319795'];
    const grid = el('div', { class: 'history-grid' });
    section.appendChild(grid);
    for (const line of h.lines) historyChart(grid, h, line, palette[line.machine % palette.length]);
    section.appendChild(el('h2', { text: h.run_table.title }));
    table(section, h.run_table);
  }

  // A table of the report's model; clicking a heading sorts the ranked rows by that column.
  function table(parent, t) {
    const head = el('tr', {}, t.columns.map((c) => el('th', { text: c.name, class: c.left ? 'left' : '', tabindex: '0' })));
    const body = el('tbody');
    const rows = t.rows.map((r) => {
      const cells = r.cells.map((text, i) => el('td', { text: text, class: t.columns[i] && t.columns[i].left ? 'left' : '' }));
      if (r.kind !== 'ranked') {
        const span = Math.max(1, t.columns.length - r.cells.length);
        cells.push(el('td', { text: r.status + ': ' + r.reason, colspan: String(span), class: 'left' }));
      }
      const tr = el('tr', { class: r.kind + ' tone-' + r.tone }, cells);
      body.appendChild(tr);
      return { kind: r.kind, cells: r.cells, keys: r.keys || [], tr: tr };
    });
    const sorting = { column: -1, up: true };
    Array.from(head.children).forEach((th, col) => {
      const sort = () => {
        sorting.up = sorting.column === col ? !sorting.up : true;
        sorting.column = col;
        const ranked = rows.filter((r) => r.kind === 'ranked');
        const rest = rows.filter((r) => r.kind !== 'ranked');
        ranked.sort((a, b) => {
          const x = a.cells[col] || '', y = b.cells[col] || '';
          const vx = a.keys[col], vy = b.keys[col];
          const d = vx != null && vy != null ? vx - vy : x.localeCompare(y);
          return sorting.up ? d : -d;
        });
        for (const r of rest.filter((r) => r.kind === 'reference').concat(ranked, rest.filter((r) => r.kind !== 'reference')))
          body.appendChild(r.tr);
        for (const h of head.children) h.removeAttribute('aria-sort');
        th.setAttribute('aria-sort', sorting.up ? 'ascending' : 'descending');
      };
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (e) => {
        if (e.key === 'Enter') sort();
      });
    });
    parent.appendChild(el('table', { class: 'sortable' }, [el('thead', {}, [head]), body]));
    notes(parent, t.notes || [], 'legend-notes');
  }

  // A note's mark and what it says: "n/a: the I/O ..." is ["n/a", "the I/O ..."], "* byte-at-a-time
  // ..." ["*", "byte-at-a-time ..."]; a note without a short mark has none.
  function markOf(line) {
    const at = line.indexOf(': ');
    return line.startsWith('* ') ? ['*', line.slice(2)] : at > 0 && at <= 16 ? [line.slice(0, at), line.slice(at + 2)] : ['', line];
  }

  // Notes that each define a mark or a term (every one, or `always`), as a table of the two; others
  // as paragraphs.
  function notes(parent, lines, cls, always) {
    const split = lines.map(markOf);
    if (!lines.length || !(always || split.every(([mark]) => mark))) {
      for (const n of lines) parent.appendChild(el('p', { class: 'note', text: n }));
      return;
    }
    parent.appendChild(el('table', { class: cls }, [el('tbody', {}, split.map(([mark, text]) =>
      el('tr', {}, [el('th', { text: mark, class: 'left' }), el('td', { text: text, class: 'left' })])))]));
  }

  function list(parent, items, cls) {
    if (!items.length) return;
    parent.appendChild(el('ul', { class: cls }, items.map((w) => el('li', { text: w }))));
  }

  function run(r) {
    const section = el('section', { class: 'run' });
    root.appendChild(section);
    section.appendChild(el('h2', { text: (r.name ? r.name + ' — ' : '') + r.title }));
    if (r.partial) section.appendChild(el('p', { class: 'partial', text: 'PARTIAL: a signal stopped the run; the cases measured before it are here.' }));
    for (const l of r.header) section.appendChild(el('p', { class: 'machine', text: l }));
    // The document's sections, in its order, those it puts first on a page before the others.
    for (const b of r.blocks.filter((x) => x.first).concat(r.blocks.filter((x) => !x.first))) {
      if (b.kind === 'answer') {
        section.appendChild(el('h3', { text: 'The answer' }));
        if (b.table) {
          const box = el('div', { class: 'answer-table' });
          section.appendChild(box);
          table(box, b.table);
        } else {
          list(section, b.lines, 'answer');
        }
      } else if (b.kind === 'table') {
        const box = el('section', { class: 'group' });
        section.appendChild(box);
        box.appendChild(el('h3', { text: b.title }));
        rankedChart(box, b);
        samplesChart(box, b);
        orderChart(box, b);
        sweepChart(box, b.sweeps, false);
        sweepChart(box, b.job_sweeps, true);
        for (const t of b.timelines) timelineChart(box, t);
        table(box, b.table);
      } else if (b.kind === 'baseline') {
        const box = el('section', { class: 'baseline' });
        section.appendChild(box);
        box.appendChild(el('h3', { text: b.title }));
        comparison(box, b.comparison);
      } else if (b.kind === 'findings') {
        section.appendChild(el('h3', { text: 'Do the published findings hold here?' }));
        for (const l of b.lines) section.appendChild(el('p', { class: 'verdicts', text: l }));
        replicationChart(section, b.findings);
        table(section, b.table);
      } else if (b.table) {
        section.appendChild(el('h3', { text: b.table.title || b.title }));
        for (const l of b.lines) section.appendChild(el('p', { text: l }));
        table(section, b.table);
      } else if (b.kind === 'notes') {
        // Each mark of the tables beside what it means, as a table rather than paragraphs.
        section.appendChild(el('h3', { text: 'Notes' }));
        notes(section, b.lines, 'notes', true);
      } else if (b.kind === 'environment') {
        section.appendChild(el('h3', { text: 'Environment' }));
        section.appendChild(el('table', { class: 'environment' },
          b.lines.map((kv) => {
            const at = kv.indexOf(': ');
            return el('tr', {}, [el('th', { text: kv.slice(0, at), class: 'left' }), el('td', { text: kv.slice(at + 2), class: 'left' })]);
          })));
      } else {
        section.appendChild(el('h3', { text: b.title.charAt(0).toUpperCase() + b.title.slice(1) }));
        list(section, b.lines, b.kind);
      }
    }
  }

  document.title = model.title;
  root.appendChild(el('h1', { text: model.title }));
  if (model.comparison) {
    const box = el('section', { class: 'comparison' });
    root.appendChild(box);
    box.appendChild(el('h2', { text: 'The runs compared' }));
    // The verdicts first: a line for each run against the first.
    for (const pair of model.comparison.pairs)
      if (pair.verdicts) box.appendChild(el('p', { class: 'verdicts', text: pair.after + ' against ' + pair.before + ': ' + pair.verdicts }));
    comparisonChart(box, model.comparison);
    for (const pair of model.comparison.pairs) {
      box.appendChild(el('h3', { text: pair.after + ' against ' + pair.before }));
      comparison(box, pair, true);
    }
  }
  if (model.history) history(model.history);
  for (const r of model.runs) run(r);
  root.appendChild(el('footer', { text: 'Written by iolab. Charts drawn by Chart.js ' + Chart.version + ' (MIT licence), inlined.' }));
  window.iolabReport = drawn;
  document.body.setAttribute('data-ready', 'yes');
})();
