// The Node.js subset judged JavaScript programs rely on, on top of QuickJS-ng (js_main.c runs
// this before the program). What exists is listed in sandbox/interpreters/README.md; anything
// else is absent rather than half there. The script's value is the function js_main.c calls to
// run the next due timer.
(function () {
  'use strict';
  const native = globalThis.__hacrl;
  delete globalThis.__hacrl;

  let stdinText = null;
  // Standard input, read once on first use.
  function stdin() {
    if (stdinText === null) {
      stdinText = native.readFile('');
      if (stdinText === null) stdinText = '';
    }
    return stdinText;
  }

  // util.inspect's default output for the values judged programs print.
  function inspect(value, depth, seen) {
    switch (typeof value) {
      case 'string':
        return depth === 0 ? value : "'" + value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n') + "'";
      case 'number':
        return Object.is(value, -0) ? '-0' : String(value);
      case 'bigint':
        return value + 'n';
      case 'undefined':
        return 'undefined';
      case 'function':
        return value.name ? '[Function: ' + value.name + ']' : '[Function (anonymous)]';
      case 'symbol':
        return value.toString();
      case 'boolean':
        return String(value);
    }
    if (value === null) return 'null';
    if (seen.includes(value)) return '[Circular *1]';
    if (depth > 2) return Array.isArray(value) ? '[Array]' : '[Object]';
    const inner = seen.concat([value]);
    const show = (v) => inspect(v, depth + 1, inner);
    const wrap = (open, parts, close) => parts.length === 0 ? open + close : open + ' ' + parts.join(', ') + ' ' + close;
    if (Array.isArray(value)) return wrap('[', value.map(show), ']');
    if (value instanceof Error) return value.stack ? value.name + ': ' + value.message + '\n' + value.stack.trimEnd() : String(value);
    if (value instanceof Map) return 'Map(' + value.size + ') ' + wrap('{', [...value].map(([k, v]) => show(k) + ' => ' + show(v)), '}');
    if (value instanceof Set) return 'Set(' + value.size + ') ' + wrap('{', [...value].map(show), '}');
    if (value instanceof String || value instanceof Number || value instanceof Boolean) return '[' + value.constructor.name + ': ' + show(value.valueOf()) + ']';
    const key = (k) => /^[A-Za-z_$][\w$]*$/.test(k) ? k : show(k);
    return wrap('{', Object.keys(value).map((k) => key(k) + ': ' + show(value[k])), '}');
  }

  // util.format: %s %d %i %f %j %o %O %% in a leading string, the rest inspected.
  function format(args) {
    let rest = args;
    let head = '';
    if (typeof args[0] === 'string' && args[0].includes('%')) {
      let i = 1;
      head = args[0].replace(/%([sdifjoO%])/g, (m, c) => {
        if (c === '%') return '%';
        if (i >= args.length) return m;
        const a = args[i++];
        switch (c) {
          case 's': return typeof a === 'string' ? a : inspect(a, 1, []);
          case 'd': case 'i': { const n = Number(a); return String(c === 'i' ? Math.trunc(n) : n); }
          case 'f': return String(parseFloat(a));
          case 'j': return JSON.stringify(a);
          default: return inspect(a, 1, []);
        }
      });
      rest = args.slice(i);
      return [head].concat(rest.map((a) => inspect(a, 0, []))).join(' ');
    }
    return rest.map((a) => inspect(a, 0, [])).join(' ');
  }

  const out = (fd) => (...args) => native.write(fd, format(args) + '\n');
  globalThis.console = {
    log: out(1), info: out(1), debug: out(1),
    error: out(2), warn: out(2), trace: out(2),
  };

  // Timers run in virtual time once the program returns: by due time, then by creation.
  let timers = [];
  let timerSeq = 0;
  let now = 0;
  function addTimer(fn, ms, args, repeat) {
    const id = ++timerSeq;
    const delay = Math.max(0, Number(ms) || 0);
    timers.push({ id, at: now + delay, fn, args, repeat: repeat ? Math.max(1, delay) : 0 });
    return id;
  }
  globalThis.setTimeout = (fn, ms, ...args) => addTimer(fn, ms, args, false);
  globalThis.setInterval = (fn, ms, ...args) => addTimer(fn, ms, args, true);
  globalThis.setImmediate = (fn, ...args) => addTimer(fn, 0, args, false);
  globalThis.clearTimeout = globalThis.clearInterval = globalThis.clearImmediate =
    (id) => { timers = timers.filter((t) => t.id !== id); };

  // Event emitters for process.stdin and readline: every listener of an event gets it once
  // the program's synchronous part is done (a timer at time 0), like Node's first read.
  function emitter(target) {
    const listeners = {};
    target.on = target.addListener = target.once = function (event, fn) {
      (listeners[event] = listeners[event] || []).push(fn);
      return target;
    };
    return (event, ...args) => (listeners[event] || []).slice().forEach((fn) => fn(...args));
  }

  const stdinStream = { fd: 0, isTTY: false };
  const emitStdin = emitter(stdinStream);
  stdinStream.setEncoding = stdinStream.resume = stdinStream.pause = () => stdinStream;
  stdinStream[Symbol.asyncIterator] = async function* () { if (stdin() !== '') yield stdin(); };
  addTimer(() => {
    if (stdin() !== '') emitStdin('data', stdin());
    emitStdin('end');
    emitStdin('close');
  }, 0, [], false);

  const writer = (fd) => ({
    fd,
    isTTY: false,
    write(chunk, encoding, done) {
      native.write(fd, String(chunk));
      const cb = typeof encoding === 'function' ? encoding : done;
      if (typeof cb === 'function') setImmediate(cb);
      return true;
    },
    end(chunk) { if (chunk !== undefined) native.write(fd, String(chunk)); },
    on() { return this; },
  });

  globalThis.process = {
    argv: ['node'].concat(globalThis.scriptArgs || []),
    env: {},
    platform: 'wasi',
    version: 'v0.0.0-quickjs',
    versions: {},
    exitCode: undefined,
    stdin: stdinStream,
    stdout: writer(1),
    stderr: writer(2),
    exit(code) { native.exit(code === undefined ? (process.exitCode || 0) : code); },
    nextTick(fn, ...args) { Promise.resolve().then(() => fn(...args)); },
    hrtime: Object.assign(() => [Math.floor(now / 1000), (now % 1000) * 1e6], { bigint: () => BigInt(now) * 1000000n }),
    memoryUsage: () => ({ rss: 0, heapTotal: 0, heapUsed: 0, external: 0 }),
    on() { return process; },
  };

  function lines() {
    const text = stdin();
    if (text === '') return [];
    const all = text.split(/\r?\n/);
    if (all[all.length - 1] === '') all.pop();
    return all;
  }

  function createInterface() {
    const rl = { closed: false, terminal: false };
    const emit = emitter(rl);
    const queue = lines();
    let started = false;
    rl.close = () => {
      if (rl.closed) return;
      rl.closed = true;
      emit('close');
    };
    rl.setPrompt = rl.prompt = rl.pause = rl.resume = () => rl;
    rl.question = (query, cb) => {
      native.write(1, String(query));
      started = true;
      setImmediate(() => cb(queue.length ? queue.shift() : ''));
    };
    rl[Symbol.asyncIterator] = async function* () {
      started = true;
      while (queue.length && !rl.closed) yield queue.shift();
      rl.close();
    };
    addTimer(() => {
      if (started) return;
      while (queue.length && !rl.closed) emit('line', queue.shift());
      rl.close();
    }, 0, [], false);
    return rl;
  }

  function readFileSync(path, options) {
    const encoding = typeof options === 'string' ? options : options && options.encoding;
    const name = typeof path === 'number' ? path : String(path);
    let text;
    if (name === 0 || name === '/dev/stdin') text = stdin();
    else if (typeof name === 'number') text = null;
    else text = native.readFile(name);
    if (text === null) {
      const e = new Error("ENOENT: no such file or directory, open '" + name + "'");
      e.code = 'ENOENT';
      throw e;
    }
    // No Buffer here: without an encoding the contents come as a String object, which
    // toString(), split() and string concatenation treat like Node's Buffer.
    return encoding ? text : new String(text);
  }

  function writeFileSync(path, data) {
    if (path === 1 || path === '/dev/stdout') native.write(1, String(data));
    else if (path === 2 || path === '/dev/stderr') native.write(2, String(data));
    else throw new Error('writeFileSync: only standard output and standard error can be written');
  }

  const modules = {
    fs: { readFileSync, writeFileSync },
    readline: { createInterface },
    util: { format: (...args) => format(args), inspect: (v) => inspect(v, 1, []) },
    os: { EOL: '\n' },
  };
  globalThis.require = function require(name) {
    const key = String(name).replace(/^node:/, '');
    if (Object.prototype.hasOwnProperty.call(modules, key)) return modules[key];
    const e = new Error("Cannot find module '" + name + "'");
    e.code = 'MODULE_NOT_FOUND';
    throw e;
  };
  globalThis.module = { exports: {} };
  globalThis.global = globalThis;

  return function nextTimer() {
    if (timers.length === 0) return false;
    let next = 0;
    for (let i = 1; i < timers.length; i++) if (timers[i].at < timers[next].at) next = i;
    const t = timers[next];
    now = t.at;
    if (t.repeat) t.at += t.repeat;
    else timers.splice(next, 1);
    t.fn(...t.args);
    return true;
  };
})();
