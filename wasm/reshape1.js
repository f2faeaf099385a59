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

  /// The largest model (with its weights) the API takes: the module's heap is 32-bit and grows to 4 GiB,
  /// and a model is read into it whole (twice at once, when a second command's copy cannot reuse the
  /// first's place).
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
    if (typeof name !== 'string' || name.includes('\0'))
      throw new TypeError(`reshape1: a file needs a name (a string without NUL), not ${JSON.stringify(String(name))}`);
    const base = name.split(/[\\/]/).pop();
    if (base === '' || base === '.' || base === '..' || base === 'out')
      throw new TypeError(`reshape1: '${name}' cannot name a file here (give a file name such as model.onnx)`);
    return base;
  }

  /// A file name as an argument: one that starts with '-' would be read as an option.
  function argument(name) {
    return name.startsWith('-') ? './' + name : name;
  }

  /// A file's bytes as a Uint8Array (an ArrayBuffer is viewed as one); anything else is refused.
  function asBytes(bytes, what) {
    if (bytes instanceof Uint8Array) return bytes;
    if (bytes instanceof ArrayBuffer) return new Uint8Array(bytes);
    throw new TypeError(`reshape1: ${what}'s bytes must be a Uint8Array or an ArrayBuffer`);
  }

  /// Every path under `dir` (the memory file system's devices and processes aside).
  function listTree(FS, dir, into = new Set()) {
    for (const name of FS.readdir(dir)) {
      if (name === '.' || name === '..') continue;
      const p = (dir === '/' ? '' : dir) + '/' + name;
      if (p === '/dev' || p === '/proc') continue;
      into.add(p);
      if (FS.isDir(FS.stat(p).mode)) listTree(FS, p, into);
    }
    return into;
  }

  function removeTree(FS, path) {
    if (FS.isDir(FS.stat(path).mode)) {
      for (const name of FS.readdir(path)) if (name !== '.' && name !== '..') removeTree(FS, path + '/' + name);
      FS.rmdir(path);
    } else {
      FS.unlink(path);
    }
  }

  class Reshape1 {
    constructor(core, output) {
      this.core = core;
      this.output = output;
    }

    /// Runs `reshape1 ...args` with `files` ({name: Uint8Array}) in its working directory; returns the exit
    /// code, what it printed, and the files it wrote into `out/` (named in args as `out/NAME`). Whatever
    /// else the command wrote, anywhere, is removed: each command starts from the same file system.
    run(args, files = {}) {
      if (!Array.isArray(args)) throw new TypeError('reshape1: run() takes the arguments as an array of strings');
      const FS = this.core.FS;
      const inputs = Object.entries(files).map(([name, bytes]) => [basename(name), asBytes(bytes, name)]);
      if (new Set(inputs.map(([name]) => name)).size !== inputs.length)
        throw new TypeError(`reshape1: two files named ${inputs.map(([n]) => n).join(', ')}: each needs a name of its own`);
      let total = 0;
      for (const [, bytes] of inputs) total += bytes.byteLength;
      if (total > MAX_INPUT_BYTES)
        return refusal('too_large', `the model is ${total} bytes; the browser build reads at most ${MAX_INPUT_BYTES} bytes (1 GiB): use the command-line tool`);
      const before = listTree(FS, '/');
      FS.mkdir(JOB);
      FS.mkdir(JOB + '/out');
      FS.chdir(JOB);
      this.output.out = [];
      this.output.err = [];
      try {
        for (const [name, bytes] of inputs) FS.writeFile(name, bytes);
        const exitCode = this.core.run(args.map(String));
        const written = {};
        for (const name of FS.readdir('out')) if (name !== '.' && name !== '..') written[name] = FS.readFile('out/' + name);
        return {exitCode, stdout: decoder.decode(new Uint8Array(this.output.out)),
                stderr: decoder.decode(new Uint8Array(this.output.err)), files: written};
      } finally {
        FS.chdir('/');
        // Deepest first: a directory the command made goes after what it holds.
        const made = [...listTree(FS, '/')].filter((p) => !before.has(p)).sort((a, b) => b.length - a.length);
        for (const p of made) {
          try {
            removeTree(FS, p);
          } catch (e) {
            // already removed with its directory
          }
        }
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

    /// `reshape1 fix MODEL -o OUT --json` ({'check-batch': '1,4'}, or {shape: [...]}, ...): `files` holds the
    /// fixed model (and an IR's .bin) when one was written, named after the model (`m.fixed.onnx`).
    fix(model, options = {}) {
      return this.command('fix', model, options);
    }

    /// A command on {model: {name, bytes}, bin: {name, bytes}} with the report parsed from its --json output
    /// (null when the command printed no JSON: --help, --version).
    command(name, {model, bin} = {}, options = {}) {
      if (!model || typeof model !== 'object') throw new TypeError('reshape1: give the model as {model: {name, bytes}}');
      if (options === null || typeof options !== 'object' || Array.isArray(options))
        throw new TypeError('reshape1: options are an object of the tool\'s long options, e.g. {batch: 4}');
      for (const key of Object.keys(options))
        if (!/^[a-z][a-z0-9-]*$/.test(key))
          throw new TypeError(`reshape1: '${key}' is not an option's name (give {batch: 4}, not {'--batch': 4} or {'batch=4': true})`);
      const modelBytes = asBytes(model.bytes, 'the model');
      const modelName = basename(model.name);
      const files = {[modelName]: modelBytes};
      const opts = Object.assign({}, options);
      if (name === 'fix' && opts.output === undefined && !opts['dry-run']) opts.output = true;
      const ir = isXml(modelBytes);
      if (bin) {
        if (basename(bin.name) === modelName)
          throw new TypeError(`reshape1: the model and its .bin are both named '${modelName}': each needs a name of its own`);
        files[basename(bin.name)] = asBytes(bin.bytes, 'the .bin');
        opts.bin = argument(basename(bin.name));
      }
      // The files the tool writes go to out/, whence they come back in `files`.
      if (opts.output === true) opts.output = 'out/' + outputName(modelName, name, ir);
      else if (typeof opts.output === 'string') opts.output = 'out/' + basename(opts.output);
      if (opts.dot === true) opts.dot = 'out/' + stem(modelName) + '.dot';
      else if (typeof opts.dot === 'string') opts.dot = 'out/' + basename(opts.dot);
      const result = this.run([name, argument(modelName), ...optionWords(opts), '--json'], files);
      if (result.report === undefined) {
        try {
          result.report = JSON.parse(result.stdout);
        } catch (e) {
          result.report = null;
        }
      }
      return result;
    }
  }

  /// Whether the bytes are XML (an IR), as the tool tells the formats apart: by the first character that is
  /// not a space or a byte-order mark.
  function isXml(bytes) {
    let i = 0;
    if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) i = 3;
    while (i < bytes.length && (bytes[i] === 0x20 || bytes[i] === 0x09 || bytes[i] === 0x0a || bytes[i] === 0x0d)) ++i;
    return bytes[i] === 0x3c;  // '<'
  }

  /// The name without its last extension.
  function stem(name) {
    const dot = name.lastIndexOf('.');
    return dot > 0 ? name.slice(0, dot) : name;
  }

  /// m.onnx -> m.fixed.onnx (fix) or m.shapes.onnx (shapes): the extension the tool asks of the format
  /// (.onnx or .xml), whatever the model's name ends with.
  function outputName(model, command, ir) {
    return `${stem(model)}.${command === 'fix' ? 'fixed' : command}.${ir ? 'xml' : 'onnx'}`;
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
