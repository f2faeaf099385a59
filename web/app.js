// The page: picks the model's files, asks the worker (worker.js, the WebAssembly module) for every tensor's
// shape, the Reshape findings, the answer for a batch or shape and the fix, and shows what it answers. The
// reports are the JSON the command-line tool prints with --json; nothing here computes a shape.
'use strict';
(function () {
  /// The most the page reads (the module's heap is 32-bit; the API refuses more, with the same words).
  const MAX_BYTES = 1024 * 1024 * 1024;
  /// A command that runs longer is stopped, and the worker started again: 120 s, or the page's address's
  /// ?time-limit=SECONDS, at most 2,147,483 s (a browser timer's longest wait: a longer one fires at once);
  /// a value that is not a positive number keeps 120 s.
  const TIME_LIMIT_MS = (() => {
    const seconds = Number(new URLSearchParams(location.search).get('time-limit'));
    return Number.isFinite(seconds) && seconds > 0 ? Math.min(seconds, 2147483) * 1000 : 120 * 1000;
  })();

  const $ = (id) => document.getElementById(id);
  let worker = null;
  let ready = null;
  let nextId = 1;
  let model = null;  // {model: {name, bytes}, bin: {name, bytes}}
  let busy = false;
  let answered = null;  // the target the answer shown is for, in words

  /// body[data-state]: "busy" while a command runs, "idle" otherwise (what a test waits on).
  function setBusy(b) {
    busy = b;
    document.body.dataset.state = b ? 'busy' : 'idle';
  }

  function startWorker() {
    worker = new Worker('worker.js');
    ready = new Promise((resolve, reject) => {
      worker.addEventListener('message', function first(e) {
        if (e.data.type === 'ready') {
          $('version').textContent = e.data.version.replace(/^reshape1 /, '');
          resolve();
        }
        else if (e.data.type === 'load-failed') reject(new Error(e.data.message));
        else return;
        worker.removeEventListener('message', first);
      });
      worker.addEventListener('error', (e) => reject(new Error(e.message || 'the worker failed to start')));
    });
    return ready;
  }

  /// Runs a command in the worker; resolves with the API's result. Stops the worker past the time limit.
  async function run(command, options, progress) {
    await ready;
    const id = nextId++;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        worker.removeEventListener('message', onMessage);
        worker.terminate();
        startWorker();
        reject(new Error(`reshape1 ${command} stopped after ${TIME_LIMIT_MS / 1000} s, this page's time limit; ` +
                         'the command-line tool has none'));
      }, TIME_LIMIT_MS);
      function onMessage(e) {
        const m = e.data;
        if (m.id !== id) return;
        if (m.type === 'progress') {
          progress(m.text);
          return;
        }
        clearTimeout(timer);
        worker.removeEventListener('message', onMessage);
        if (m.type === 'result') {
          // The command's time in the module, for the status line and bench/page_bench.py.
          $('status').dataset.ms = m.ms.toFixed(1);
          resolve(m.result);
        } else {
          worker.terminate();  // a module that threw may not run again: a fresh one
          startWorker();
          reject(new Error(m.message));
        }
      }
      worker.addEventListener('message', onMessage);
      worker.postMessage({id, command, files: model, options});
    });
  }

  function setStatus(text) {
    $('status').textContent = text;
  }

  function showError(text) {
    $('error').textContent = text;
    $('error').hidden = !text;
  }

  function cell(row, text, className) {
    const td = row.insertCell();
    td.textContent = text === null || text === undefined ? '' : String(text);
    if (className) td.className = className;
    return td;
  }

  /// The report's error message, when the command was refused.
  function refusal(result) {
    if (result.report && result.report.error) return result.report.error.message;
    if (!result.report) return (result.stderr || '').trim() || `reshape1 exited with ${result.exitCode}`;
    return null;
  }

  /// The model's files among those picked: an .onnx, or an .xml with the .bin of its name (or the only one).
  function pickModel(files) {
    const list = Array.from(files);
    const onnx = list.find((f) => /\.onnx$/i.test(f.name));
    const xml = list.find((f) => /\.xml$/i.test(f.name));
    const main = onnx || xml || list[0];
    if (!main) return null;
    let bin = null;
    if (!onnx && xml) {
      const stem = xml.name.replace(/\.xml$/i, '');
      const bins = list.filter((f) => /\.bin$/i.test(f.name));
      bin = bins.find((f) => f.name.replace(/\.bin$/i, '') === stem) || (bins.length === 1 ? bins[0] : null);
    }
    return {main, bin};
  }

  async function load(files) {
    if (busy) {
      showError(`Still working: ${Array.from(files).map((f) => f.name).join(', ')} not read. Pick it again when the status line says the work is done.`);
      return;
    }
    setBusy(true);
    try {
      const picked = pickModel(files);
      if (!picked) return;
      showError('');
      model = null;
      answered = null;
      for (const id of ['model', 'ask', 'tensors-box', 'answer', 'fix-result']) $(id).hidden = true;
      const total = picked.main.size + (picked.bin ? picked.bin.size : 0);
      if (total > MAX_BYTES) {
        showError(`${picked.main.name}: ${total} bytes; this page reads at most ${MAX_BYTES} bytes (1 GiB): use the ` +
                  'command-line tool');
        setStatus('');
        return;
      }
      setStatus(`reading ${picked.main.name}…`);
      model = {model: {name: picked.main.name, bytes: new Uint8Array(await picked.main.arrayBuffer())}};
      if (picked.bin) model.bin = {name: picked.bin.name, bytes: new Uint8Array(await picked.bin.arrayBuffer())};
      const shapes = await run('shapes', {}, setStatus);
      const problem = refusal(shapes);
      if (problem) {
        showError(problem);
        setStatus('');
        return;
      }
      showShapes(shapes.report);
      const check = await run('check', {}, setStatus);
      showReshapes(check.report);
      $('model').hidden = false;
      $('ask').hidden = false;
      $('tensors-box').hidden = false;
      $('fix').disabled = false;
      const ignored = Array.from(files).filter((f) => f !== picked.main && f !== picked.bin).map((f) => f.name);
      setStatus(`${model.model.name}: ${shapes.report.summary.tensors} tensors` +
                (ignored.length ? ` (one model at a time: ${ignored.join(', ')} not read)` : ''));
      $('target').focus();
      $('target').select();  // typing replaces the value
    } catch (e) {
      showError(e.message);
      setStatus('');
    } finally {
      setBusy(false);
    }
  }

  function showShapes(report) {
    const io = $('io').tBodies[0];
    const all = $('tensors').tBodies[0];
    io.textContent = '';
    all.textContent = '';
    for (const t of report.tensors) {
      const row = all.insertRow();
      // A tensor of a Loop's, Scan's or TensorIterator's body names the layers around it, as the CLI does.
      const around = (t.within || []).map((w) => w.name).filter((n, k, names) => k === 0 || names[k - 1] !== n);
      cell(row, around.length ? `${t.name} (in ${around.join(' > ')})` : t.name, 'name');
      cell(row, t.op);
      cell(row, t.shape, 'shape');
      cell(row, t.declared, 'shape');
      if (t.op.startsWith('Parameter-') && !around.length) {  // a body's Parameters are no model input
        // The input's name as the shapes field takes it (an IR's Parameter layer, not its port's tensor name).
        const r = io.insertRow();
        cell(r, t.layer, 'name');
        cell(r, t.shape, 'shape');
        cell(r, t.declared, 'shape');
      }
    }
    const gaps = report.gaps.length;
    $('tensors-line').textContent = `${report.summary.tensors} tensors, ${report.summary.rank_known} of known rank, ` +
        `${report.summary.static} static` + (gaps ? `; ${gaps} layers propagation cannot pass` : '');
  }

  function showReshapes(report) {
    if (!report || report.error) {
      $('reshapes-line').textContent = report ? report.error.message : '';
      return;
    }
    const s = report.summary;
    $('reshapes-line').textContent = `${s.reshapes} Reshape layers: ${s.ok} ok, ${s.error} failing, ` +
        `${s.blocking_reshape} writing a size as a constant`;
  }

  /// The batch or shapes typed, as the tool's options; throws, saying what to type, when there are none.
  function targetOptions() {
    const kind = document.querySelector('input[name=kind]:checked').value;
    const text = $('target').value.trim();
    if (kind === 'batch') {
      if (!text) throw new Error('Type a batch: a number such as 4, ?, or an interval such as 1..8.');
      return {batch: text};
    }
    // One NAME=SHAPE a line (or separated by ';'); a shape alone is the only input's.
    const shape = text.split(/[\n;]+/).map((s) => s.trim()).filter(Boolean);
    if (shape.length === 0)
      throw new Error('Type a shape: NAME=SHAPE for each input to change (x=[1,3,?@H,?@W]), or a shape alone ' +
                      'for a model of one input.');
    return {shape: shape.map((s) => (s.includes('=') ? s : '=' + s))};
  }

  async function check(event) {
    event.preventDefault();
    if (busy || !model) return;
    setBusy(true);
    showError('');
    $('answer').hidden = true;
    $('fix-result').hidden = true;
    try {
      const result = await run('check', Object.assign(targetOptions(), {dot: true}), setStatus);
      const problem = refusal(result);
      if (problem) {
        showError(problem);
        setStatus('');
        return;
      }
      await showAnswer(result);
      answered = describe(targetOptions());
      setStatus(`${result.report.summary.line} (${Math.round(Number($('status').dataset.ms))} ms)`);
    } catch (e) {
      showError(e.message);
      setStatus('');
    } finally {
      setBusy(false);
    }
  }

  async function showAnswer(result) {
    const r = result.report;
    $('answer-json').textContent = result.stdout;
    const verdict = r.summary.verdict;
    const words = {yes: 'Yes', no: 'No', cannot_tell: 'Cannot tell'}[verdict] || verdict;
    $('verdict').textContent = `${words}. ${r.summary.line[0].toUpperCase()}${r.summary.line.slice(1)}.`;
    $('verdict').className = 'verdict ' + verdict;
    const list = $('findings');
    list.textContent = '';
    for (const f of r.findings) {
      const li = document.createElement('li');
      const head = document.createElement('strong');
      head.textContent = `${f.finding.replace(/_/g, ' ')}: ${f.type} '${f.name}' (id ${f.id})`;
      li.appendChild(head);
      const what = document.createElement('p');
      what.textContent = f.what;
      li.appendChild(what);
      if (f.hint) {
        const hint = document.createElement('p');
        hint.className = 'hint';
        hint.textContent = f.hint;
        li.appendChild(hint);
      }
      list.appendChild(li);
    }
    const dot = Object.values(result.files)[0];
    $('picture').textContent = '';
    $('picture-box').hidden = true;
    if (dot && r.findings.length > 0 && self.Viz) {
      const viz = await self.Viz.instance();
      $('picture').appendChild(viz.renderSVGElement(new TextDecoder().decode(dot)));
      $('picture-box').hidden = false;
    }
    $('answer').hidden = false;
  }

  async function fix() {
    if (busy || !model) return;
    setBusy(true);
    showError('');
    $('fix-result').hidden = true;
    try {
      const target = targetOptions();
      // The answer shown stays only if it is for this target.
      if (answered !== describe(target)) $('answer').hidden = true;
      const options = target.batch !== undefined ? {'check-batch': target.batch} : target;
      const result = await run('fix', options, setStatus);
      const problem = refusal(result);
      if (problem) {
        showError(problem);
        setStatus('');
        return;
      }
      // An IR's .xml first: a browser may ask before the second download, and the .xml names its .bin.
      const names = Object.keys(result.files).sort((a, b) => Number(/\.bin$/i.test(a)) - Number(/\.bin$/i.test(b)));
      for (const name of names) download(name, result.files[name]);
      const r = result.report;
      const n = r.changes.length;
      const freed = (r.freed || []).length;
      $('fix-result').textContent = names.length > 0
        ? `Downloaded ${names.join(' and ')}: ${n} ${n === 1 ? 'pattern' : 'patterns'} rewritten, ` +
          `${freed} declared ${freed === 1 ? 'dimension' : 'dimensions'} freed (for ${describe(target)}).`
        : (r.nothing_to_do ? 'Nothing to fix: the model reshapes as it is.' : 'Not fixed: ' +
           r.refusals.map((x) => `${x.type || ''} '${x.name || ''}': ${x.reason || x.why || x.what || x.code || ''}`).join('; '));
      $('fix-result').hidden = false;
      setStatus(r.fixed ? 'fixed' : 'not fixed');
    } catch (e) {
      showError(e.message);
      setStatus('');
    } finally {
      setBusy(false);
    }
  }

  function download(name, bytes) {
    const url = URL.createObjectURL(new Blob([bytes], {type: 'application/octet-stream'}));
    const a = document.createElement('a');
    a.href = url;
    a.download = name;
    document.body.appendChild(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 60 * 1000);
  }

  /// What a target asks, in words: for the fix result.
  function describe(target) {
    return target.batch !== undefined ? `batch ${target.batch}` : `shapes ${target.shape.map((s) => s.replace(/^=/, '')).join('; ')}`;
  }

  function onKind() {
    const batch = document.querySelector('input[name=kind]:checked').value === 'batch';
    $('answer').hidden = true;
    $('fix-result').hidden = true;
    $('target').value = '';
    $('target-label').innerHTML = batch
      ? 'Batch (a number, <code>?</code>, or an interval such as <code>1..8</code>)'
      : 'Shapes, one <code>NAME=SHAPE</code> a line or separated by <code>;</code> (e.g. <code>x=[1,3,?@H,?@W]</code>)';
  }

  $('files').addEventListener('change', (e) => {
    const files = Array.from(e.target.files);
    e.target.value = '';  // the same file picked again is a new pick
    load(files);
  });
  const drop = $('drop');
  drop.addEventListener('dragover', (e) => {
    e.preventDefault();
    drop.classList.add('over');
  });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (e) => {
    e.preventDefault();
    drop.classList.remove('over');
    load(e.dataTransfer.files);
  });
  $('ask-form').addEventListener('submit', check);
  $('fix').addEventListener('click', fix);
  for (const r of document.querySelectorAll('input[name=kind]')) r.addEventListener('change', onKind);

  startWorker().then(
    () => setStatus('Ready: choose a model.'),
    (e) => showError(`reshape1 could not start in this browser: ${e.message}`));
})();
