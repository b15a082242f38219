/**
 * The visit collector served at `/_svc/analytics.js` (spec 02 §6, §8), no dependencies. A page includes
 * `<script src="…/_svc/analytics.js" data-store="STORE_ID" data-api="…/storefront/v1" defer></script>`.
 * Cookies `svc_vid` (1 year) and `svc_sid` (30 minutes idle); a page view on load and on every History
 * API move (hash moves are not pages); batches every 5 s or at 50 events, flushed with a keepalive
 * request when the page hides — `sendBeacon` cannot carry the visit headers the buyer API requires.
 * At most 30 events per name per minute and 100 per page in all. Consent: `pending` collects without
 * cookies (an id per page load) until granted; `denied` drops everything. `svc.track(name, props)`,
 * `svc.consent(state)`, and `svc.visitHeaders()` for the storefront's own buyer API calls.
 */
export const COLLECTOR_PATH = '/_svc/analytics.js';

export const collectorScript = `(function () {
  var w = window, d = document, s = d.currentScript;
  if (w.svc && w.svc.track) return;
  var api = (s && s.getAttribute('data-api')) || '/storefront/v1';
  var store = s && s.getAttribute('data-store');
  var consent = (s && s.getAttribute('data-consent')) || 'granted';
  var queue = [], total = 0, perName = {}, timer = null, lastPath = null;
  var rand = function () { var a = new Uint8Array(12); crypto.getRandomValues(a); return Array.prototype.map.call(a, function (b) { return ('0' + b.toString(16)).slice(-2); }).join(''); };
  var cookie = function (n) { var m = d.cookie.match(new RegExp('(?:^|; )' + n + '=([^;]*)')); return m ? m[1] : null; };
  var setCookie = function (n, v, seconds) { d.cookie = n + '=' + v + '; path=/; max-age=' + seconds + '; samesite=lax' + (location.protocol === 'https:' ? '; secure' : ''); };
  var pageIds = { vid: rand(), sid: rand() };
  function ids() {
    if (consent !== 'granted') return pageIds;
    var vid = cookie('svc_vid') || pageIds.vid, sid = cookie('svc_sid') || pageIds.sid;
    setCookie('svc_vid', vid, 31536000);
    setCookie('svc_sid', sid, 1800);
    return { vid: vid, sid: sid };
  }
  function headers() { var i = ids(); return { 'x-svc-visitor': i.vid, 'x-svc-session': i.sid }; }
  function utm() {
    var q = new URLSearchParams(location.search), u = { source: q.get('utm_source'), medium: q.get('utm_medium'), campaign: q.get('utm_campaign') };
    return u.source || u.medium || u.campaign ? u : null;
  }
  function send(keepalive) {
    if (timer) { clearTimeout(timer); timer = null; }
    if (!queue.length || !store || consent === 'denied') { queue = []; return; }
    var h = headers(), batch = queue.splice(0, 50);
    h['content-type'] = 'application/json';
    h['x-store-id'] = store;
    try { fetch(api.replace(/\\/+$/, '') + '/events', { method: 'POST', headers: h, body: JSON.stringify({ events: batch }), keepalive: !!keepalive, credentials: 'omit' }).catch(function () {}); } catch (e) {}
    if (queue.length) send(keepalive);
  }
  function track(name, props) {
    if (consent === 'denied' || total >= 100) return;
    var minute = Math.floor(Date.now() / 60000), n = perName[name];
    if (!n || n.minute !== minute) n = perName[name] = { minute: minute, count: 0 };
    if (n.count >= 30) return;
    n.count++; total++;
    var e = { name: name, at: new Date().toISOString(), path: location.pathname, consent: consent };
    for (var k in props || {}) e[k] = props[k];
    queue.push(e);
    if (queue.length >= 50) send(false);
    else if (!timer) timer = setTimeout(function () { send(false); }, 5000);
  }
  function page(first) {
    if (location.pathname === lastPath) return;
    lastPath = location.pathname;
    var props = { utm: utm() };
    if (first && d.referrer) props.referrer = d.referrer;
    track('page', props);
  }
  ['pushState', 'replaceState'].forEach(function (m) {
    var original = history[m];
    history[m] = function () { var r = original.apply(this, arguments); page(false); return r; };
  });
  w.addEventListener('popstate', function () { page(false); });
  w.addEventListener('pagehide', function () { track('page_hide'); send(true); });
  d.addEventListener('visibilitychange', function () { if (d.visibilityState === 'hidden') send(true); });
  w.svc = {
    track: track,
    consent: function (state) { consent = state; if (state === 'denied') { queue = []; setCookie('svc_vid', '', 0); setCookie('svc_sid', '', 0); } },
    visitHeaders: function () { return consent === 'denied' ? {} : headers(); },
    flush: function () { send(false); }
  };
  page(true);
})();
`;
