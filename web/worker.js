// The page's Web Worker: loads the WebAssembly module once and runs one command at a time on the files the
// page sends, so that the page stays responsive while a large model is read. Messages in:
// {id, command, files, options}; out: {id, type: 'progress', text} and {id, type: 'result', result, ms} (the
// command's time in the module) or {id, type: 'failed', message}.
'use strict';
importScripts('reshape1-core.js', 'reshape1.js');

const loading = self.Reshape1.load().then(
  (r) => {
    self.postMessage({type: 'ready', version: r.run(['--version']).stdout.trim()});
    return r;
  },
  (e) => {
    self.postMessage({type: 'load-failed', message: String(e && e.message ? e.message : e)});
    throw e;
  });

self.onmessage = async (event) => {
  const {id, command, files, options} = event.data;
  let reshape1;
  try {
    reshape1 = await loading;
  } catch (e) {
    return;  // reported once, as load-failed
  }
  try {
    self.postMessage({id, type: 'progress', text: `running reshape1 ${command}…`});
    const start = performance.now();
    const result = reshape1.command(command, files, options);
    const ms = performance.now() - start;
    const transfer = Object.values(result.files).map((b) => b.buffer);
    self.postMessage({id, type: 'result', result, ms}, transfer);
  } catch (e) {
    self.postMessage({id, type: 'failed', message: String(e && e.message ? e.message : e)});
  }
};
