// The local inbox's script (served by the runtime at /_local/mail/inbox.js). Every value read from
// a message is put in the page as text (textContent, attributes through the DOM): nothing is
// parsed as HTML. The HTML body is shown by a sandboxed frame that loads it from the runtime.

const POLL_MS = 1500;
const api = '/_local/mail/messages';
const $ = (id) => document.getElementById(id);

const state = {
  query: '',
  signature: '',
  selected: '',
  detail: null,
  tab: 'html',
  sourceOf: '',
  eventsSignature: '',
};

/** A new element with text content and attributes (set through the DOM, never as markup). */
function el(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

const messageUrl = (id) => `${api}/${encodeURIComponent(id)}`;

function formatTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const today = new Date();
  const sameDay = date.toDateString() === today.toDateString();
  return sameDay
    ? date.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' })
    : date.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

const plural = (n, noun) => `${n} ${noun}${n === 1 ? '' : 's'}`;

function formatSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

function problem(text) {
  const node = $('problem');
  node.textContent = text || '';
  node.hidden = !text;
}

async function getJson(url, cache = 'no-store') {
  const res = await fetch(url, { cache });
  if (res.status === 404) return null;
  if (!res.ok) throw new Error(`${url} answered ${res.status}`);
  return res.json();
}

// ---------------------------------------------------------------------------------------------
// The list

async function refreshList() {
  const query = state.query;
  // Revalidated with its ETag: an unchanged list costs the runtime a 304.
  const data = await getJson(`${api}?q=${encodeURIComponent(query)}`, 'no-cache');
  if (!data || query !== state.query) return;
  const signature = JSON.stringify(data);
  if (signature === state.signature) return;
  state.signature = signature;
  renderList(data);
}

function renderList({ messages, matched, total }) {
  const list = $('messages');
  const items = messages.map((m) => {
    const link = el('a', undefined, { href: `#${encodeURIComponent(m.id)}`, title: m.createdAt });
    link.append(
      el('span', m.from || '(no sender)', { class: 'from' }),
      el('time', formatTime(m.createdAt), { class: 'time', datetime: m.createdAt }),
      el('span', m.subject || '(no subject)', { class: 'subject' }),
      el(
        'span',
        `To: ${m.to.join(', ')}${m.attachments ? ` · ${plural(m.attachments, 'attachment')}` : ''}`,
        {
          class: 'to',
        },
      ),
      el('span', m.parseError ? `Unreadable MIME: ${m.parseError}` : m.snippet, { class: 'snippet' }),
    );
    const item = el('li', undefined, { 'data-id': m.id });
    if (m.id === state.selected) item.classList.add('selected');
    item.append(link);
    return item;
  });
  list.replaceChildren(...items);
  const noun = (n) => plural(n, 'message');
  const shown = messages.length < matched ? ` (newest ${messages.length} shown)` : '';
  $('count').textContent = `${state.query ? `${matched} of ${noun(total)}` : noun(total)}${shown}`;
  const empty = $('empty');
  empty.hidden = messages.length > 0;
  empty.textContent =
    total === 0
      ? 'No mail yet. Mail sent through this runtime lands here; nothing leaves this machine.'
      : 'No message matches the search.';
  $('delete-all').disabled = total === 0;
}

function markSelected() {
  for (const item of $('messages').children) {
    item.classList.toggle('selected', item.dataset.id === state.selected);
  }
}

// ---------------------------------------------------------------------------------------------
// One message

function showNothing(text) {
  state.detail = null;
  $('message').hidden = true;
  $('placeholder').hidden = false;
  $('placeholder').textContent = text;
  $('html-frame').removeAttribute('src');
}

async function openMessage(id) {
  state.selected = id;
  state.sourceOf = '';
  state.eventsSignature = '';
  markSelected();
  problem('');
  if (!id) return showNothing('Select a message.');
  const detail = await getJson(messageUrl(id));
  if (id !== state.selected) return;
  if (!detail) return showNothing('This message is gone (deleted).');
  state.detail = detail;
  renderMessage(detail);
  showTab(detail.hasHtml || state.tab !== 'html' ? state.tab : 'text');
  await refreshEvents();
}

function renderMessage(m) {
  $('placeholder').hidden = true;
  $('message').hidden = false;
  $('subject').textContent = m.subject || '(no subject)';

  const meta = [
    ['From', m.from],
    ['To', m.to.join(', ')],
    ['Cc', m.cc.join(', ')],
    ['Reply-To', m.replyTo.join(', ')],
    ['Envelope', `${m.envelope.from} → ${m.envelope.to.join(', ')}`],
    ['Received', `${formatTime(m.createdAt)} (${m.createdAt})`],
    ['Size', formatSize(m.size)],
    ['Id', m.id],
  ];
  if (m.parseError) meta.push(['Problem', `The MIME could not be parsed: ${m.parseError}`]);
  const rows = meta
    .filter(([, value]) => value)
    .flatMap(([name, value]) => [el('dt', name), el('dd', value)]);
  $('meta').replaceChildren(...rows);

  const parts = m.parts.map((part) => {
    const link = el('a', part.filename, {
      href: `${messageUrl(m.id)}/parts/${part.index}`,
      class: 'part',
      download: part.filename,
      title: `${part.contentType}${part.inline ? ' (inline image)' : ''}`,
    });
    link.append(el('span', formatSize(part.size), { class: 'size' }));
    const item = el('li');
    item.append(link);
    return item;
  });
  $('attachments').replaceChildren(...parts);

  const frame = $('html-frame');
  if (m.hasHtml) {
    frame.hidden = false;
    $('no-html').hidden = true;
    frame.src = `${messageUrl(m.id)}/html`;
  } else {
    frame.hidden = true;
    frame.removeAttribute('src');
    $('no-html').hidden = false;
  }
  $('text').textContent = m.text ?? '(This message has no text body.)';
  const headerRows = m.headers.map((h) => {
    const row = el('tr');
    row.append(el('th', h.name, { scope: 'row' }), el('td', h.value));
    return row;
  });
  $('headers').replaceChildren(...headerRows);
  $('source').textContent = '';
  $('events-count').textContent = '';
}

function showTab(tab) {
  state.tab = tab;
  for (const button of document.querySelectorAll('.tabs button')) {
    button.setAttribute('aria-selected', String(button.dataset.tab === tab));
  }
  for (const name of ['html', 'text', 'headers', 'source', 'events']) $(`tab-${name}`).hidden = name !== tab;
  if (tab === 'source') loadSource().catch(report);
}

async function loadSource() {
  const id = state.selected;
  if (!id || state.sourceOf === id) return;
  $('source').textContent = 'Loading…';
  const res = await fetch(`/_local/emails/${encodeURIComponent(id)}/raw`, { cache: 'no-store' });
  if (id !== state.selected) return;
  $('source').textContent = res.ok ? await res.text() : `The source could not be read (${res.status}).`;
  state.sourceOf = id;
}

async function refreshEvents() {
  const id = state.selected;
  if (!id || !state.detail) return;
  const data = await getJson(`${messageUrl(id)}/events`);
  if (id !== state.selected) return;
  if (!data) return showNothing('This message is gone (deleted).');
  const signature = JSON.stringify(data);
  if (signature === state.eventsSignature) return;
  state.eventsSignature = signature;
  renderEvents(data);
}

function eventLine(name, at, detail) {
  const item = el('li');
  item.append(
    el('span', name, { class: 'name' }),
    el('time', at ? formatTime(at) : '', at ? { class: 'at', datetime: at, title: at } : { class: 'at' }),
    el('span', detail || '', { class: 'detail' }),
  );
  return item;
}

/** What a recorded event says beyond its name. */
function recordedDetail(data) {
  const parts = [];
  if (typeof data.link === 'string') parts.push(data.link);
  if (data.bounceType) parts.push(`${data.bounceType}/${data.bounceSubType ?? ''}`);
  if (data.complaintFeedbackType) parts.push(data.complaintFeedbackType);
  if (data.reason) parts.push(String(data.reason));
  if (data.first === true) parts.push('first');
  return parts.join(' · ');
}

function renderEvents(data) {
  const status = $('email-status');
  if (data.email.missing) {
    status.textContent = {
      untagged: 'Not one of the project’s sends (no email record): SES events only.',
      'no-record': 'The email record is gone (its project or contact was deleted).',
      'no-store': 'Email records are not readable here.',
    }[data.email.missing];
  } else {
    const f = data.email.fields;
    const counts = [
      f.opens ? `${f.opens} open${f.opens === 1 ? '' : 's'}` : '',
      f.clicks ? `${f.clicks} click${f.clicks === 1 ? '' : 's'}` : '',
      f.reason ? `reason: ${f.reason}` : '',
    ].filter(Boolean);
    status.textContent = `Email record ${data.email.id}: ${data.email.status}${counts.length ? ` · ${counts.join(' · ')}` : ''}`;
  }
  const recorded = data.events.map((e) => eventLine(e.name, e.createdAt, recordedDetail(e.data)));
  if (recorded.length === 0) recorded.push(el('li', 'None yet.', { class: 'none' }));
  if (data.truncated)
    recorded.push(el('li', 'Older events of this contact were not read.', { class: 'none' }));
  $('recorded').replaceChildren(...recorded);
  const ses = data.ses.map((e) => eventLine(e.type, e.timestamp, e.detail));
  if (ses.length === 0)
    ses.push(el('li', 'None yet (SES publishes a moment after the send).', { class: 'none' }));
  $('ses').replaceChildren(...ses);
  $('events-count').textContent = `(${data.events.length + data.ses.length})`;
}

// ---------------------------------------------------------------------------------------------
// Deleting

async function deleteOne() {
  const id = state.selected;
  if (!id) return;
  const res = await fetch(`/_local/emails/${encodeURIComponent(id)}`, { method: 'DELETE' });
  if (!res.ok && res.status !== 404) throw new Error(`Deleting answered ${res.status}`);
  const next =
    $('messages').querySelector(`li.selected + li`) ?? $('messages').querySelector('li:not(.selected)');
  history.replaceState(null, '', next ? `#${encodeURIComponent(next.dataset.id)}` : location.pathname);
  await Promise.all([refreshList(), openMessage(next ? next.dataset.id : '')]);
}

async function deleteAll() {
  if (!confirm('Delete every message in the local inbox?')) return;
  const res = await fetch('/_local/emails', { method: 'DELETE' });
  if (!res.ok) throw new Error(`Deleting answered ${res.status}`);
  history.replaceState(null, '', location.pathname);
  await Promise.all([refreshList(), openMessage('')]);
}

// ---------------------------------------------------------------------------------------------
// Wiring

function report(error) {
  problem(error instanceof Error ? error.message : String(error));
}

const selectedFromHash = () => {
  try {
    return decodeURIComponent(location.hash.slice(1));
  } catch {
    return '';
  }
};

function start() {
  let typing;
  $('search').addEventListener('input', (event) => {
    clearTimeout(typing);
    typing = setTimeout(() => {
      state.query = event.target.value.trim();
      refreshList().catch(report);
    }, 150);
  });
  $('delete-all').addEventListener('click', () => deleteAll().catch(report));
  $('delete-one').addEventListener('click', () => deleteOne().catch(report));
  for (const button of document.querySelectorAll('.tabs button')) {
    button.addEventListener('click', () => showTab(button.dataset.tab));
  }
  window.addEventListener('hashchange', () => openMessage(selectedFromHash()).catch(report));

  const poll = async () => {
    try {
      if (!document.hidden) {
        await refreshList();
        await refreshEvents();
        problem('');
      }
    } catch (error) {
      report(new Error(`The runtime did not answer (${error.message}); retrying.`));
    } finally {
      setTimeout(poll, POLL_MS);
    }
  };
  showTab('html');
  refreshList()
    .then(() => openMessage(selectedFromHash()))
    .catch(report)
    .finally(() => setTimeout(poll, POLL_MS));
}

start();
