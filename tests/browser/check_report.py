#!/usr/bin/env python3
"""Opens an iolab HTML report in headless Chromium and checks it as a reader would see it.

Usage: check_report.py REPORT.html [--results A.json ...] [--screenshot OUT.png]

Fails (exit 1, one line per problem) on any console error or uncaught exception, on any
network request (the report must be self-contained), on a chart whose canvas holds no drawn
pixels, and, given the result files the report was made from, on a chart that does not hold
one mark per case, sample or finding of those files. Exit 77 when Chromium is not installed.

Chromium is driven through the DevTools protocol over a pipe (--remote-debugging-pipe: commands
on fd 3, replies on fd 4, each a JSON text ended by a NUL byte), so nothing listens on a port.
"""
import argparse
import re
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

TIMEOUT_S = 90


class Browser:
    def __init__(self, chromium, profile):
        to_browser_r, self.to_browser = os.pipe()
        self.from_browser, from_browser_w = os.pipe()
        args = [
            chromium, '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
            '--disable-background-networking', '--disable-component-update', '--disable-sync',
            '--disable-extensions', '--disable-default-apps', '--mute-audio', '--hide-scrollbars',
            '--remote-debugging-pipe', '--user-data-dir=' + profile, '--window-size=1280,900',
        ]

        def fds():
            # Out of the way first: either pipe end may itself be fd 3 or 4.
            r = fcntl.fcntl(to_browser_r, fcntl.F_DUPFD, 10)
            w = fcntl.fcntl(from_browser_w, fcntl.F_DUPFD, 10)
            os.dup2(r, 3)
            os.dup2(w, 4)

        self.proc = subprocess.Popen(args, pass_fds=(), preexec_fn=fds, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, close_fds=False)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self.buffer = b''
        self.next_id = 0
        self.events = []
        self.deadline = time.monotonic() + TIMEOUT_S

    def _read_message(self):
        while b'\0' not in self.buffer:
            left = self.deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError('Chromium did not answer within %d s' % TIMEOUT_S)
            ready, _, _ = select.select([self.from_browser], [], [], left)
            if not ready:
                continue
            chunk = os.read(self.from_browser, 1 << 20)
            if not chunk:
                raise RuntimeError('Chromium closed the DevTools pipe (exit status %s)' % self.proc.poll())
            self.buffer += chunk
        text, self.buffer = self.buffer.split(b'\0', 1)
        return json.loads(text)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {'id': self.next_id, 'method': method, 'params': params or {}}
        if session:
            message['sessionId'] = session
        data = json.dumps(message).encode() + b'\0'
        while data:
            data = data[os.write(self.to_browser, data):]
        while True:
            reply = self._read_message()
            if reply.get('id') == self.next_id:
                if 'error' in reply:
                    raise RuntimeError('%s: %s' % (method, reply['error']))
                return reply.get('result', {})
            self.events.append(reply)

    def wait_for(self, predicate):
        for e in self.events:
            if predicate(e):
                return e
        while True:
            e = self._read_message()
            self.events.append(e)
            if predicate(e):
                return e

    def close(self):
        try:
            self.call('Browser.close')
        except Exception:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


# Run in the page once it is ready: what each chart drew. Marks are the data elements with a
# value that Chart.js laid out at finite coordinates; ink is the share of the canvas's pixels that are not blank.
INSPECT = r'''
(() => {
  const out = [];
  for (const d of window.iolabReport || []) {
    const c = d.canvas;
    const ctx = c.getContext('2d');
    const img = ctx.getImageData(0, 0, c.width, c.height).data;
    let ink = 0;
    for (let i = 0; i < img.length; i += 4) if (img[i + 3] !== 0) ink++;
    let marks = 0;
    d.chart.data.datasets.forEach((ds, i) => {
      const meta = d.chart.getDatasetMeta(i);
      if (ds.guide) return;
      if (ds.label && ds.label.indexOf('interval') >= 0) return;
      if (ds.label && ds.label.indexOf('limit') === 0) return;
      meta.data.forEach((e, j) => {
        const v = ds.data[j];
        if (v != null && !(typeof v === 'object' && !Array.isArray(v) && v.x == null) &&
            isFinite(e.x) && isFinite(e.y) && !e.skip) marks++;
      });
    });
    const violins = d.chart.data.datasets.filter((ds, i) => ds.violin &&
      d.chart.getDatasetMeta(i).data.some((e) => isFinite(e.x) && isFinite(e.y))).length;
    const thresholds = d.chart.data.datasets.filter((ds) => ds.threshold).map((ds, i) =>
      d.chart.getDatasetMeta(d.chart.data.datasets.indexOf(ds)).data.filter((e) => isFinite(e.x) && isFinite(e.y)).length)
      .reduce((a, n) => a + n, 0);
    const guides = d.chart.data.datasets.filter((ds, i) => ds.guide &&
      d.chart.getDatasetMeta(i).data.some((e) => isFinite(e.x) && isFinite(e.y))).map((ds) => ds.label);
    // A bar chart's largest bar and where its value axis ends.
    let largest = 0;
    d.chart.data.datasets.forEach((ds) => {
      if (ds.guide || ds.type === 'line' || (d.chart.config.type !== 'bar')) return;
      for (const v of ds.data) if (typeof v === 'number' && v > largest) largest = v;
    });
    const value_axis = d.chart.options.indexAxis === 'y' ? d.chart.scales.x : d.chart.scales.y;
    out.push({kind: d.kind, title: d.title, expected: d.marks, marks: marks, ink: ink, guides: guides,
              largest: largest, axis_max: value_axis ? value_axis.max : null,
              x_axes: Object.values(d.chart.scales).filter((s) => s.axis === 'x').map((s) => s.position),
              css_height: c.clientHeight,
              pixels: c.width * c.height, width: c.width, height: c.height, violins: violins,
              thresholds: thresholds, meant_thresholds: d.thresholds, meant_violins: d.violins,
              whiskers: d.whiskers || 0, meant_whiskers: d.meant_whiskers || 0, band: d.band || 0,
              meant_band: d.meant_band || 0});
  }
  const ratios = Array.from(document.querySelectorAll('td.ratio')).map((td) =>
    [parseFloat(td.getAttribute('data-ratio')), td.textContent]);
  const counts = {};
  for (const sel of SELECTORS) counts[sel] = document.querySelectorAll(sel).length;
  // Verdict cells laid out on more than one line (a word broken, or words wrapped).
  const verdictCells = Array.from(document.querySelectorAll(
    'tr.tone-good td:first-child, tr.tone-bad td:first-child, tr.tone-doubtful td:first-child, td.verdict'));
  const wrapped = verdictCells.filter((td) => {
    const range = document.createRange();
    range.selectNodeContents(td);
    const tops = new Set(Array.from(range.getClientRects()).map((r) => Math.round(r.top)));
    return tops.size > 1;
  }).map((td) => td.textContent);
  const verdicts = Array.from(document.querySelectorAll('table.changes tbody tr')).map((tr) => [
    tr.className, getComputedStyle(tr.querySelector('td.verdict')).color]);
  return JSON.stringify({charts: out, tables: document.querySelectorAll('table').length,
                         verdict_cells: verdictCells.length, wrapped: wrapped,
                         titles: Array.from(document.querySelectorAll('h1, h2')).map((h) => h.textContent),
                         first_chart: (window.iolabReport[0] || {}).kind || null,
                         verdicts_first: (() => {
                           const v = document.querySelector('p.verdicts'), c = document.querySelector('canvas');
                           return !!(v && c && (v.compareDocumentPosition(c) & Node.DOCUMENT_POSITION_FOLLOWING));
                         })(),
                         ratios: ratios, verdicts: verdicts,
                         nothing_shared: document.querySelectorAll('.nothing-shared').length,
                         headings: Array.from(document.querySelectorAll('th')).map((th) => th.textContent),
                         counts: counts, text: document.body.innerText,
                         ready: document.body.getAttribute('data-ready')});
})()
'''


# Run after the inspection: a click on a table's MiB/s heading sorts its ranked rows ascending,
# a second click descending (the reference row stays first).
SORT = r'''
(() => {
  for (const t of document.querySelectorAll('table.sortable')) {
    const heads = Array.from(t.querySelectorAll('thead th'));
    const col = heads.findIndex((h) => h.textContent === 'MiB/s');
    const values = () => Array.from(t.querySelectorAll('tbody tr.ranked')).map((r) => parseFloat(r.children[col].textContent));
    if (col < 0 || values().length < 2) continue;
    const before = values();
    heads[col].click();
    const up = values();
    heads[col].click();
    const down = values();
    const first = t.querySelector('tbody tr').className;
    return JSON.stringify({checked: true, before: before, up: up, down: down,
                           reference_first: first.indexOf('reference') >= 0 || !t.querySelector('tr.reference')});
  }
  return JSON.stringify({checked: false});
})()
'''


# Run in the page after the inspection: each sample-order chart, switched to its menu's last case,
# must then hold that case's samples (and its median's two ends).
ORDER = r'''
(() => {
  const out = [];
  for (const menu of document.querySelectorAll('select.order-case')) {
    const last = menu.options.length - 1;
    menu.value = String(last);
    menu.dispatchEvent(new Event('change'));
    const d = window.iolabReport.filter((x) => x.kind === 'order')[out.length];
    const meta = d.chart.getDatasetMeta(0).data.filter((e) => isFinite(e.x) && isFinite(e.y) && !e.skip).length;
    out.push({options: menu.options.length, samples: d.order.samples, drawn: meta, label: d.order.label,
              chosen: menu.options[last].textContent});
  }
  return JSON.stringify(out);
})()
'''


def case_key(c):
    return (c.get('group', ''), c['strategy'], json.dumps(c.get('params', {}), sort_keys=True))


def fixed_cost(samples):
    """The fixed cost taken from every sample of a case: the median of its probes' times, where
    every sample has one (fixed_s of -1 or none: not a tool's case)."""
    costs = sorted(s.get('fixed_s', -1) for s in samples)
    if not costs or costs[0] < 0:
        return 0.0
    n = len(costs)
    return costs[n // 2] if n % 2 else (costs[n // 2 - 1] + costs[n // 2]) / 2


def expected_from_results(paths):
    """What the charts must hold, counted from the result files themselves."""
    ranked = samples = findings = violins = thresholds = ratios = 0
    runs = []
    for p in paths:
        with open(p, encoding='utf-8-sig') as f:
            r = json.load(f)
        runs.append(r)
        for c in r['cases']:
            if c['status'] == 'ok':
                ranked += 1
                # A tool's samples are net of the median of its probes' times (each sample's own
                # probe would be one hiccup away from a time below 0): one not above 0 has no point.
                drawn = sum(1 for s in c['samples'] if s['wall_s'] - fixed_cost(c['samples']) > 0)
                samples += drawn
                violins += drawn >= 10
        shown = [f for f in r.get('findings', [])
                 if f.get('measured_ratio') is not None or f.get('published_ratio') is not None]
        findings += sum(1 for f in shown if f.get('measured_ratio') is not None)
        findings += sum(1 for f in shown if f.get('published_ratio') is not None)
        thresholds += sum(2 if f.get('within') else 1 if f.get('at_least') else 0 for f in shown)
        ratios += len(r.get('baseline', {}).get('cases', []))
    # Side by side, each later run against the first: the cases both measured, and of them those
    # with a violin's samples on both sides, drawn as two overlaid distributions.
    def drawn_of(r):
        return {case_key(c): sum(1 for s in c['samples'] if s['wall_s'] - fixed_cost(c['samples']) > 0)
                for c in r['cases'] if c['status'] == 'ok'}
    first = drawn_of(runs[0]) if runs else {}
    overlaid = overlaid_samples = 0
    for r in runs[1:]:
        later = drawn_of(r)
        ratios += sum(1 for k in later if k in first)
        both = [k for k in later if k in first and first[k] >= 10 and later[k] >= 10]
        overlaid += len(both)
        overlaid_samples += sum(first[k] + later[k] for k in both)
    # The samples chart also marks each case's median.
    return {'ranked': ranked, 'samples': samples + ranked, 'replication': findings, 'violins': violins,
            'thresholds': thresholds, 'ratios': ratios, 'overlaid': 2 * overlaid, 'distributions': overlaid_samples}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('report')
    ap.add_argument('--results', nargs='*', default=[])
    ap.add_argument('--width', type=int, default=1280, help='the page\'s width in CSS pixels (a narrow one wraps tables)')
    ap.add_argument('--expect-first-chart', help='the kind of the page\'s first chart, with a line of verdicts before it')
    ap.add_argument('--expect-history-points', type=int,
                    help='a history page: one chart per case of the result files, each with this many points')
    ap.add_argument('--screenshot')
    ap.add_argument('--screenshot-of', help='with --screenshot: only the first element this CSS selector finds')
    ap.add_argument('--expect-kinds', default='', help='comma list of chart kinds that must be present')
    ap.add_argument('--expect-sortable', action='store_true', help='a table must sort by MiB/s')
    ap.add_argument('--expect-nothing-shared', action='store_true', help='the page must say no case is shared')
    ap.add_argument('--expect-heading', action='append', default=[], help='a table must have a column of this name')
    ap.add_argument('--expect-count', action='append', default=[],
                    help='SELECTOR=N: the page must have N elements the CSS selector finds')
    ap.add_argument('--expect-text', action='append', default=[], help='the page must show this text')
    ap.add_argument('--expect-guide', action='append', default=[],
                    help='a chart must draw a guide line (a threshold, a gate) whose legend starts with this')
    args = ap.parse_args()
    chromium = shutil.which('chromium') or shutil.which('chromium-browser')
    if not chromium:
        print('skipped: Chromium is not installed (Debian package chromium; scripts/deps.sh installs it)')
        return 77
    url = 'file://' + os.path.abspath(args.report)
    problems = []
    sort_check = None
    order_check = []
    with tempfile.TemporaryDirectory(prefix='iolab-chromium-') as profile:
        b = Browser(chromium, profile)
        try:
            target = b.call('Target.createTarget', {'url': 'about:blank'})['targetId']
            session = b.call('Target.attachToTarget', {'targetId': target, 'flatten': True})['sessionId']
            for domain in ('Runtime', 'Log', 'Network', 'Page'):
                b.call(domain + '.enable', session=session)
            b.call('Emulation.setDeviceMetricsOverride',
                   {'width': args.width, 'height': 900, 'deviceScaleFactor': 1, 'mobile': False}, session=session)
            b.call('Page.navigate', {'url': url}, session=session)
            b.wait_for(lambda e: e.get('method') == 'Page.loadEventFired')
            result = None
            while True:
                selectors = [e.rsplit('=', 1)[0] for e in args.expect_count]
                r = b.call('Runtime.evaluate', {'expression': 'const SELECTORS = %s;' % json.dumps(selectors) + INSPECT,
                                                'returnByValue': True}, session=session)
                value = r.get('result', {}).get('value')
                result = json.loads(value) if isinstance(value, str) else None
                if result and result['ready'] == 'yes':
                    break
                if time.monotonic() > b.deadline:
                    problems.append('the report never finished drawing (no data-ready on its body)')
                    break
                if any(e.get('method') == 'Runtime.exceptionThrown' for e in b.events):
                    break
                time.sleep(0.2)
            if args.screenshot:
                metrics = b.call('Page.getLayoutMetrics', session=session)
                size = metrics.get('cssContentSize') or metrics['contentSize']
                clip = {'x': 0, 'y': 0, 'width': 1280, 'height': min(size['height'], 2400), 'scale': 1}
                if args.screenshot_of:
                    where = ('(() => { const e = document.querySelector(%s); if (!e) return null; '
                             'const r = e.getBoundingClientRect(); return JSON.stringify({x: r.left + scrollX, '
                             'y: r.top + scrollY, width: r.width, height: r.height}); })()' %
                             json.dumps(args.screenshot_of))
                    r = b.call('Runtime.evaluate', {'expression': where, 'returnByValue': True}, session=session)
                    box = r.get('result', {}).get('value')
                    if not box:
                        raise RuntimeError('no element %s to take a picture of' % args.screenshot_of)
                    clip = dict(json.loads(box), scale=1)
                shot = b.call('Page.captureScreenshot',
                              {'format': 'png', 'captureBeyondViewport': True, 'clip': clip}, session=session)
                with open(args.screenshot, 'wb') as f:
                    f.write(base64.b64decode(shot['data']))
            sort_check = None
            if result and result['ready'] == 'yes':
                r = b.call('Runtime.evaluate', {'expression': SORT, 'returnByValue': True}, session=session)
                sort_check = json.loads(r['result']['value'])
                r = b.call('Runtime.evaluate', {'expression': ORDER, 'returnByValue': True}, session=session)
                order_check = json.loads(r['result']['value'])
        except (TimeoutError, RuntimeError, OSError) as e:
            problems.append('the browser session failed: %s' % e)
        finally:
            b.close()

    for e in b.events:
        m, p = e.get('method'), e.get('params', {})
        if m == 'Runtime.exceptionThrown':
            d = p['exceptionDetails']
            problems.append('uncaught exception: %s' % (d.get('exception', {}).get('description') or d.get('text')))
        elif m == 'Runtime.consoleAPICalled' and p.get('type') in ('error', 'assert', 'warning'):
            problems.append('console %s: %s' % (p['type'], ' '.join(str(a.get('value', a.get('description')))
                                                                      for a in p.get('args', []))))
        elif m == 'Log.entryAdded' and p['entry'].get('level') == 'error':
            problems.append('browser log %s: %s' % (p['entry']['level'], p['entry'].get('text')))
        elif m == 'Network.requestWillBeSent':
            req = p['request']['url']
            if req != url and not req.startswith('data:'):
                problems.append('network request: %s' % req)

    charts = result['charts'] if result else []
    if result is None and not problems:
        problems.append('the report could not be inspected')
    if sort_check and sort_check['checked']:
        up, down = sort_check['up'], sort_check['down']
        if up != sorted(up) or down != sorted(down, reverse=True) or sorted(up) != sorted(sort_check['before']):
            problems.append('sorting by MiB/s gave %s, then %s (from %s)' % (up, down, sort_check['before']))
        if not sort_check['reference_first']:
            problems.append('sorting moved the reference row from the top of its table')
    elif args.expect_sortable:
        problems.append('no sortable table with a MiB/s column and two ranked rows')
    for c in charts:
        if c['pixels'] == 0 or c['ink'] < 0.01 * c['pixels']:
            problems.append('chart "%s" (%s) is blank: %d of %d pixels drawn' % (c['title'], c['kind'], c['ink'], c['pixels']))
        if c['marks'] != c['expected']:
            problems.append('chart "%s" (%s) laid out %d marks, the report meant %d' % (c['title'], c['kind'], c['marks'], c['expected']))
    for o in order_check:
        if o['drawn'] != o['samples'] or o['samples'] == 0 or not o['chosen'].startswith(o['label']):
            problems.append('the sample-order chart, switched to %s, drew %d of its %d samples' %
                            (o['chosen'], o['drawn'], o['samples']))
    for c in charts:
        if c['kind'] in ('samples', 'distributions') and c['violins'] != (c['meant_violins'] or 0):
            problems.append('chart "%s" drew %d violins, meant %s' % (c['title'], c['violins'], c['meant_violins']))
        if c['kind'] == 'ranked' and c['largest'] > 0 and c['axis_max'] > 2 * c['largest'] * (1 + 1e-9):
            problems.append('chart "%s" stretches its axis to %g, past twice its largest bar (%g)' %
                            (c['title'], c['axis_max'], c['largest']))
        # Taller than a screen: its horizontal axis at the top as well as the bottom.
        if c['css_height'] > 900 and 'bottom' in c['x_axes'] and 'top' not in c['x_axes']:
            problems.append('chart "%s" is %d px tall with an axis only at its bottom' % (c['title'], c['css_height']))
        if c['kind'] in ('comparison', 'history') and c['whiskers'] != c['meant_whiskers']:
            problems.append('chart "%s" drew %d whiskers, meant %d' % (c['title'], c['whiskers'], c['meant_whiskers']))
        if c['kind'] in ('ratios', 'history') and c['band'] != c['meant_band']:
            problems.append('chart "%s" %s the gate\'s band' % (c['title'], 'lacks' if c['meant_band'] else 'draws'))
        if c['kind'] == 'replication' and c['thresholds'] != (c['meant_thresholds'] or 0):
            problems.append('chart "%s" drew %d threshold marks, meant %s' % (c['title'], c['thresholds'], c['meant_thresholds']))
    if result:
        # A cell holds its ratio, or '-' for a case without one (no time).
        if any(not (x is not None and x > 0) and text != '-' for x, text in result['ratios']):
            problems.append('a ratio cell holds no ratio: %s' % result['ratios'])
        with_ratio = sum(1 for x, _ in result['ratios'] if x is not None and x > 0)
        ratio_marks = sum(c['marks'] for c in charts if c['kind'] == 'ratios')
        if ratio_marks != with_ratio:
            problems.append('the ratio charts hold %d marks, the tables %d ratio cells' % (ratio_marks, with_ratio))
        for e in args.expect_count:
            sel, n = e.rsplit('=', 1)
            if result['counts'].get(sel) != int(n):
                problems.append('%d elements match %s, expected %s' % (result['counts'].get(sel, -1), sel, n))
        for t in args.expect_text:
            if t not in result['text']:
                problems.append('the page does not show "%s"' % t)
        for g in args.expect_guide:
            if not any(label.startswith(g) for c in charts for label in c['guides']):
                problems.append('no chart draws a guide "%s…"' % g)
        for t in result['titles']:
            if len(re.findall(r'\d(?:[\d.,]*) ?(?:bytes?|B|[KMGT]iB)\b', t)) > 3:
                problems.append('a title lists more than three sizes: %s' % t)
        if args.expect_first_chart and (result['first_chart'] != args.expect_first_chart or not result['verdicts_first']):
            problems.append('the first chart is %s (expected %s), a line of verdicts before it: %s' %
                            (result['first_chart'], args.expect_first_chart, result['verdicts_first']))
        if result['wrapped']:
            problems.append('verdict cells laid out on more than one line: %s' % result['wrapped'])
        colours = {}
        for cls, colour in result['verdicts']:
            colours.setdefault(cls.split()[0], set()).add(colour)
        if len(colours) > 1 and len({next(iter(v)) for v in colours.values()}) != len(colours):
            problems.append('verdicts of different kinds share a colour: %s' % colours)
        for h in args.expect_heading:
            if h not in result['headings']:
                problems.append('no table has a column "%s"' % h)
        if args.expect_nothing_shared and not result['nothing_shared']:
            problems.append('no line says that the runs share no case')
    kinds = {c['kind'] for c in charts}
    for k in filter(None, args.expect_kinds.split(',')):
        if k not in kinds:
            problems.append('no %s chart (drawn: %s)' % (k, ', '.join(sorted(kinds)) or 'none'))
    if args.expect_history_points is not None:
        # One chart per case the result files measured (they are of one machine), a point per run.
        cases = set()
        for p in args.results:
            with open(p, encoding='utf-8-sig') as f:
                cases |= {case_key(c) for c in json.load(f)['cases'] if c['status'] == 'ok'}
        history = [c for c in charts if c['kind'] == 'history']
        if len(history) != len(cases):
            problems.append('%d history charts for the %d cases of the result files' % (len(history), len(cases)))
        for c in history:
            if c['marks'] != args.expect_history_points:
                problems.append('history chart "%s" draws %d points, expected %d' %
                                (c['title'], c['marks'], args.expect_history_points))
    elif args.results and charts:
        want = expected_from_results(args.results)
        for kind in ('ranked', 'samples', 'replication', 'distributions'):
            got = sum(c['marks'] for c in charts if c['kind'] == kind)
            if got != want[kind]:
                problems.append('%s charts hold %d marks; the result files have %d' % (kind, got, want[kind]))
        got = {'violins': sum(c['violins'] for c in charts if c['kind'] == 'samples'),
               'overlaid': sum(c['violins'] for c in charts if c['kind'] == 'distributions'),
               'thresholds': sum(c['thresholds'] for c in charts), 'ratios': len(result['ratios'])}
        for what, n in got.items():
            if n != want[what]:
                problems.append('the page draws %d %s; the result files call for %d' % (n, what, want[what]))
    for p in problems:
        print('report check: ' + p)
    if not problems:
        print('report check: %d charts drawn (%s), %d tables, %d ratio cells, %d violins, %d threshold marks, '
              '%d sample-order menus, no console error, no network request' %
              (len(charts), ', '.join('%s %d marks' % (c['kind'], c['marks']) for c in charts), result['tables'],
               len(result['ratios']), sum(c['violins'] for c in charts), sum(c['thresholds'] for c in charts),
               len(order_check)))
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main())
