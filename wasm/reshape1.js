// reshape1's JS API: the command-line tool compiled to WebAssembly, run on files given as bytes. What it
// returns is what `reshape1 COMMAND ... --json` prints (the same renderer), the tool's exit code, and the
// files the command wrote. Options are the tool's own long options, so the tool reads and refuses them:
//
//   const reshape1 = await Reshape1.load();
//   const r = reshape1.check({model: {name: 'm.onnx', bytes}}, {batch: 4});
//   r.exitCode;  // 0 yes, 1 no, 4 cannot tell, 2 an unreadable model or a wrong option (docs/cli.md)
//   r.report;    // the JSON document, e.g. r.report.answer, or r.report.error.message
//   const f = reshape1.fix({model: {name: 'm.xml', bytes}, bin: {name: 'm.bin', bytes: weights}}, {batch: 4});
//   f.files;     // {'m.fixed.xml': Uint8Array, 'm.fixed.bin': Uint8Array} when the fix was written
//
// Loads as a CommonJS module (Node: require) and as a classic script (a Web Worker: importScripts after
// reshape1-core.js, then self.Reshape1). Single-threaded; one command at a time per loaded module.
(function (root, factory) {
  if (typeof module === 'object' && module.exports) {
    // Node: the module's bytes are read here. emscripten 3.1.6's loader would fetch() them, and Node's fetch
    // takes no file paths.
    const wasm = () => require('fs').readFileSync(require('path').join(__dirname, 'reshape1-core.wasm'));
    module.exports = factory(require('./reshape1-core.js'), wasm);
  } else {
    root.Reshape1 = factory(root.createReshape1Core, null);
  }
})(typeof self !== 'undefined' ? self : this, function (createCore, wasmBinary) {
  'use strict';

  /// The largest model (with its weights) the API takes: the module's heap is 32-bit and grows to 2 GiB,
  /// and a model is read from a copy in the module's memory.
  const MAX_INPUT_BYTES = 1024 * 1024 * 1024;
  const JOB = '/job';

  const decoder = new TextDecoder('utf-8');

  /// The tool's JSON error document, for what the API refuses before the tool runs.
  function refusal(code, message) {
    return {exitCode: 2, report: {error: {code, message, indices: []}}, stdout: '', stderr: message + '\n', files: {}};
  }

  /// `--name value` for each option: an array repeats the option, true is a flag, false and null leave it out.
  function optionWords(options) {
    const words = [];
    for (const [key, value] of Object.entries(options || {})) {
      const flag = '--' + key;
      if (value === undefined || value === null || value === false) continue;
      if (value === true) words.push(flag);
      else if (Array.isArray(value)) for (const v of value) words.push(flag, String(v));
      else words.push(flag, String(value));
    }
    return words;
  }

  /// A file's name without its directories; `out` is where the tool's own files go.
  function basename(name) {
    const base = String(name).split(/[\\/]/).pop();
    if (base === '' || base === '.' || base === '..' || base === 'out')
      throw new TypeError(`reshape1: '${name}' cannot name a file here (give a file name such as model.onnx)`);
    return base;
  }

  /// A file name as an argument: one that starts with '-' would be read as an option.
  function argument(name) {
    return name.startsWith('-') ? './' + name : name;
  }

  class Reshape1 {
    constructor(core, output) {
      this.core = core;
      this.output = output;
    }

    /// Runs `reshape1 ...args` with `files` ({name: Uint8Array}) in its working directory; returns the exit
    /// code, what it printed, and the files it wrote into `out/` (named in args as `out/NAME`).
    run(args, files = {}) {
      const FS = this.core.FS;
      let total = 0;
      for (const bytes of Object.values(files)) total += bytes.byteLength;
      if (total > MAX_INPUT_BYTES)
        return refusal('too_large', `the model is ${total} bytes; the browser build reads at most ${MAX_INPUT_BYTES} bytes (1 GiB): use the command-line tool`);
      FS.mkdir(JOB);
      FS.mkdir(JOB + '/out');
      FS.chdir(JOB);
      this.output.out = [];
      this.output.err = [];
      try {
        for (const [name, bytes] of Object.entries(files)) FS.writeFile(basename(name), bytes);
        const exitCode = this.core.run(args.map(String));
        const written = {};
        for (const name of FS.readdir('out')) if (name !== '.' && name !== '..') written[name] = FS.readFile('out/' + name);
        return {exitCode, stdout: decoder.decode(new Uint8Array(this.output.out)),
                stderr: decoder.decode(new Uint8Array(this.output.err)), files: written};
      } finally {
        FS.chdir('/');
        removeTree(FS, JOB);
      }
    }

    /// `reshape1 check MODEL --json` with `options` ({batch: 4, shape: ['x=[1,3,?,?]'], layout: [...], ...}).
    /// With {dot: true} and an answer to give, `files` holds the Graphviz picture of the findings (`m.dot`).
    check(model, options = {}) {
      return this.command('check', model, options);
    }

    /// `reshape1 shapes MODEL --json`: every tensor's shape. With {output: true}, also the model with its
    /// shapes declared, in `files`.
    shapes(model, options = {}) {
      return this.command('shapes', model, options);
    }

    /// `reshape1 fix MODEL -o OUT --json` ({batch: 4} or {shape: [...]}, ...): `files` holds the fixed model
    /// (and an IR's .bin) when one was written, named after the model (`m.fixed.onnx`).
    fix(model, options = {}) {
      return this.command('fix', model, options);
    }

    /// A command on {model: {name, bytes}, bin: {name, bytes}} with the report parsed from its --json output.
    command(name, {model, bin} = {}, options = {}) {
      if (!model || !model.bytes) throw new TypeError('reshape1: give the model as {model: {name, bytes}}');
      const files = {[basename(model.name)]: model.bytes};
      const opts = Object.assign({}, options);
      if (name === 'fix' && opts.output === undefined && !opts['dry-run']) opts.output = true;
      if (bin) {
        files[basename(bin.name)] = bin.bytes;
        opts.bin = argument(basename(bin.name));
      }
      // The files the tool writes go to out/, whence they come back in `files`.
      if (opts.output === true) opts.output = 'out/' + fixedName(basename(model.name), name);
      else if (typeof opts.output === 'string') opts.output = 'out/' + basename(opts.output);
      if (opts.dot === true) opts.dot = 'out/' + basename(model.name).replace(/\.[^.]*$/, '') + '.dot';
      else if (typeof opts.dot === 'string') opts.dot = 'out/' + basename(opts.dot);
      const result = this.run([name, argument(basename(model.name)), ...optionWords(opts), '--json'], files);
      if (result.report === undefined) result.report = result.stdout === '' ? null : JSON.parse(result.stdout);
      return result;
    }
  }

  /// m.onnx -> m.fixed.onnx (fix) or m.shapes.onnx (shapes).
  function fixedName(model, command) {
    const dot = model.lastIndexOf('.');
    const tag = command === 'fix' ? 'fixed' : command;
    return dot > 0 ? `${model.slice(0, dot)}.${tag}${model.slice(dot)}` : `${model}.${tag}`;
  }

  function removeTree(FS, path) {
    for (const name of FS.readdir(path)) {
      if (name === '.' || name === '..') continue;
      const p = path + '/' + name;
      if (FS.isDir(FS.stat(p).mode)) removeTree(FS, p);
      else FS.unlink(p);
    }
    FS.rmdir(path);
  }

  /// Loads the module. `locateFile` (optional) tells emscripten's loader where reshape1-core.wasm is.
  async function load({locateFile} = {}) {
    const output = {out: [], err: []};
    const settings = {
      // Byte callbacks make standard output and error plain devices (not terminals): the tool prints as it
      // does into a pipe, and draws no progress line.
      stdout: (c) => { if (c !== null) output.out.push(c & 0xff); },
      stderr: (c) => { if (c !== null) output.err.push(c & 0xff); },
    };
    if (locateFile) settings.locateFile = locateFile;
    if (wasmBinary) settings.wasmBinary = wasmBinary();
    const core = await createCore(settings);
    return new Reshape1(core, output);
  }

  return {load, MAX_INPUT_BYTES};
});
