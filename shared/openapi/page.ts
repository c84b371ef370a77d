/**
 * `GET /docs`: the API reference as a page, served by Sesame itself (nothing from a CDN). The
 * script fetches `/openapi.json` and renders every operation with DOM calls only (no markup is
 * built from the document's text), under a Content-Security-Policy that allows nothing else.
 */

export const REFERENCE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

export const REFERENCE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sesame API reference</title>
<link rel="icon" href="data:,">
<style>
  :root { --fg:#1d2330; --muted:#5d6678; --line:#e3e6ec; --bg:#f7f8fa; --accent:#3355cc; }
  * { box-sizing: border-box; }
  body { margin:0; font:14px/1.5 system-ui, -apple-system, "Segoe UI", sans-serif; color:var(--fg); display:flex; height:100vh; }
  nav { width:320px; border-right:1px solid var(--line); overflow:auto; background:var(--bg); padding:12px; flex:none; }
  main { flex:1; overflow:auto; padding:24px 32px; }
  h1 { font-size:20px; margin:0 0 4px; } h2 { font-size:16px; margin:28px 0 8px; text-transform:capitalize; }
  h3 { font-size:13px; margin:14px 0 6px; color:var(--muted); text-transform:uppercase; letter-spacing:.04em; }
  input[type=search] { width:100%; padding:6px 8px; border:1px solid var(--line); border-radius:6px; margin:8px 0; }
  nav a { display:block; padding:3px 6px; border-radius:4px; color:var(--fg); text-decoration:none; white-space:nowrap; overflow:hidden; text-overflow:ellipsis; font-size:13px; }
  nav a:hover { background:#e9ecf3; } nav .tag { font-weight:600; margin:10px 0 2px; text-transform:capitalize; }
  .m { display:inline-block; min-width:52px; font:600 11px ui-monospace, monospace; padding:1px 5px; border-radius:4px; color:#fff; text-align:center; margin-right:6px; }
  .GET{background:#2f855a}.POST{background:#3355cc}.PUT{background:#b7791f}.PATCH{background:#805ad5}.DELETE{background:#c53030}
  .op { border:1px solid var(--line); border-radius:8px; padding:14px 16px; margin:10px 0; }
  .op .path { font:600 14px ui-monospace, monospace; } .op .sum { color:var(--muted); margin-top:4px; }
  table { border-collapse:collapse; width:100%; font-size:13px; } td, th { border-top:1px solid var(--line); padding:4px 6px; text-align:left; vertical-align:top; }
  code, .schema { font:12px ui-monospace, monospace; } .schema { background:var(--bg); border-radius:6px; padding:8px 10px; white-space:pre-wrap; max-height:420px; overflow:auto; }
  details summary { cursor:pointer; margin:4px 0; } .auth { font-size:12px; color:var(--muted); }
  #status { color:var(--muted); }
</style>
</head>
<body>
<nav><h1>Sesame API</h1><div id="version" class="auth"></div><input id="filter" type="search" placeholder="Filter routes"><div id="toc"></div></nav>
<main><p id="status">Loading the API document…</p><div id="ops"></div></main>
<script src="docs/reference.js"></script>
</body>
</html>
`;

export const REFERENCE_JS = `'use strict';
(function () {
  var METHODS = ['get', 'post', 'put', 'patch', 'delete'];
  function el(tag, attrs, children) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    (children || []).forEach(function (c) { node.append(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }
  function resolve(doc, schema) {
    if (schema && schema.$ref) {
      var parts = schema.$ref.split('/');
      return (doc.components[parts[2]] || {})[parts[3]] || {};
    }
    return schema || {};
  }
  function schemaBlock(doc, schema) {
    return el('div', { class: 'schema' }, [JSON.stringify(resolve(doc, schema), null, 2)]);
  }
  function authOf(op) {
    var names = (op.security || []).map(function (s) { return Object.keys(s)[0]; });
    return names.length ? 'Auth: ' + names.join(' or ') : 'No authentication';
  }
  function operation(doc, path, method, op) {
    var id = op.operationId || method + path;
    var box = el('section', { class: 'op', id: id }, [
      el('div', {}, [el('span', { class: 'm ' + method.toUpperCase() }, [method.toUpperCase()]), el('span', { class: 'path' }, [path])]),
      el('div', { class: 'sum' }, [op.summary || '']),
      el('div', { class: 'auth' }, [authOf(op)]),
    ]);
    if (op.parameters && op.parameters.length) {
      var rows = op.parameters.map(function (p) {
        var s = p.schema || {};
        return el('tr', {}, [el('td', {}, [el('code', {}, [p.name])]), el('td', {}, [p.in]), el('td', {}, [p.required ? 'required' : 'optional']), el('td', {}, [(s.type || (s.enum ? 'enum' : '')) + (s.enum ? ': ' + s.enum.join(' | ') : '') + (p.description ? ' — ' + p.description : '')])]);
      });
      box.append(el('h3', {}, ['Parameters']), el('table', {}, [el('tbody', {}, rows)]));
    }
    if (op.requestBody) {
      box.append(el('h3', {}, ['Request body']));
      Object.keys(op.requestBody.content || {}).forEach(function (type) {
        box.append(el('details', { open: '' }, [el('summary', {}, [type + (op.requestBody.description ? ' — ' + op.requestBody.description : '')]), schemaBlock(doc, op.requestBody.content[type].schema)]));
      });
    }
    box.append(el('h3', {}, ['Responses']));
    Object.keys(op.responses || {}).forEach(function (status) {
      var r = resolve(doc, op.responses[status]);
      var content = r.content && r.content['application/json'];
      box.append(el('details', {}, [el('summary', {}, [status + ' — ' + (r.description || '')]), content ? schemaBlock(doc, content.schema) : el('div', { class: 'auth' }, ['No JSON body'])]));
    });
    return box;
  }
  function render(doc) {
    document.getElementById('version').textContent = 'OpenAPI ' + doc.openapi + ' · version ' + doc.info.version;
    var byTag = {};
    Object.keys(doc.paths).forEach(function (path) {
      METHODS.forEach(function (method) {
        var op = doc.paths[path][method];
        if (!op) return;
        var tag = (op.tags && op.tags[0]) || 'other';
        (byTag[tag] = byTag[tag] || []).push({ path: path, method: method, op: op });
      });
    });
    var toc = document.getElementById('toc');
    var ops = document.getElementById('ops');
    Object.keys(byTag).sort().forEach(function (tag) {
      toc.append(el('div', { class: 'tag' }, [tag]));
      ops.append(el('h2', { id: 'tag-' + tag }, [tag]));
      byTag[tag].forEach(function (o) {
        var id = o.op.operationId || o.method + o.path;
        var link = el('a', { href: '#' + id, 'data-route': (o.method + ' ' + o.path).toLowerCase() }, [el('span', { class: 'm ' + o.method.toUpperCase() }, [o.method.toUpperCase()]), o.path]);
        toc.append(link);
        var box = operation(doc, o.path, o.method, o.op);
        box.setAttribute('data-route', (o.method + ' ' + o.path + ' ' + (o.op.summary || '')).toLowerCase());
        ops.append(box);
      });
    });
    document.getElementById('filter').addEventListener('input', function (e) {
      var q = e.target.value.trim().toLowerCase();
      document.querySelectorAll('[data-route]').forEach(function (node) {
        node.style.display = !q || node.getAttribute('data-route').indexOf(q) >= 0 ? '' : 'none';
      });
    });
    document.getElementById('status').textContent = Object.keys(doc.paths).length + ' paths';
  }
  fetch('openapi.json')
    .then(function (r) { if (!r.ok) throw new Error('GET /openapi.json answered ' + r.status); return r.json(); })
    .then(render)
    .catch(function (e) { document.getElementById('status').textContent = String(e.message || e); });
})();
`;
