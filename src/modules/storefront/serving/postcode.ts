/**
 * Address search for shops, at `/_svc/postcode.v2.js` on the service and beside every site. Korean shops
 * embed the Daum (Kakao) postcode service — `new daum.Postcode({ oncomplete(data) {…} }).open()` — which
 * needs the internet; svc dev serves a stand-in with the same interface over a small offline address list,
 * so a shop's address search works on a laptop and in tests. svc serve answers with a redirect to the real
 * script. `SVC_POSTCODE_SCRIPT` switches either way: `standin`, or the address of a script to redirect to.
 */
import type { H3 } from 'h3';
import type { Services } from '../../../server/services.js';

export const POSTCODE_PATH = '/_svc/postcode.v2.js';
export const DAUM_POSTCODE_SCRIPT = 'https://t1.daumcdn.net/mapjsapi/bundle/postcode/prod/postcode.v2.js';

/** Road address, lot address, building, postcode: a spread over the country, with Jeju and island postcodes for the remote-area surcharge. */
const ADDRESSES: [zonecode: string, sido: string, sigungu: string, road: string, jibun: string, building: string][] = [
  ['06236', '서울', '강남구', '테헤란로 152', '역삼동 737', '강남파이낸스센터'],
  ['06164', '서울', '강남구', '영동대로 513', '삼성동 159', '코엑스'],
  ['04524', '서울', '중구', '세종대로 110', '태평로1가 31', '서울특별시청'],
  ['03154', '서울', '종로구', '세종대로 175', '세종로 1-68', '세종문화회관'],
  ['04104', '서울', '마포구', '월드컵로 240', '성산동 515', '서울월드컵경기장'],
  ['07335', '서울', '영등포구', '여의대로 108', '여의도동 22', '파크원타워'],
  ['05551', '서울', '송파구', '올림픽로 300', '신천동 29', '롯데월드타워'],
  ['13529', '경기', '성남시 분당구', '판교역로 166', '백현동 532', '카카오 판교아지트'],
  ['16514', '경기', '수원시 영통구', '삼성로 129', '매탄동 416', ''],
  ['10881', '경기', '파주시', '회동길 145', '문발동 520-3', '출판도시'],
  ['21999', '인천', '연수구', '컨벤시아대로 165', '송도동 24-4', '포스코타워송도'],
  ['22382', '인천', '중구', '공항로 272', '운서동 2850', '인천국제공항'],
  ['34126', '대전', '유성구', '대학로 291', '구성동 23', '한국과학기술원'],
  ['41911', '대구', '중구', '공평로 88', '동인동1가 2-1', '대구광역시청'],
  ['48058', '부산', '해운대구', '해운대해변로 264', '우동 627', ''],
  ['47545', '부산', '연제구', '중앙대로 1001', '연산동 1000', '부산광역시청'],
  ['61945', '광주', '서구', '내방로 111', '치평동 1200', '광주광역시청'],
  ['44675', '울산', '남구', '중앙로 201', '신정동 646-4', '울산광역시청'],
  ['30116', '세종', '', '한누리대로 2130', '보람동 650', '세종특별자치시청'],
  ['24341', '강원', '춘천시', '중앙로 1', '봉의동 15', '강원특별자치도청'],
  ['54968', '전북', '전주시 완산구', '효자로 225', '효자동2가 1', '전북특별자치도청'],
  ['37747', '경북', '포항시 북구', '중흥로 85', '죽도동 600', ''],
  ['51430', '경남', '창원시 성산구', '중앙대로 151', '용호동 1', '창원시청'],
  ['63122', '제주', '제주시', '문연로 6', '연동 312-1', '제주특별자치도청'],
  ['63535', '제주', '서귀포시', '중문관광로72번길 75', '색달동 2864-1', ''],
  ['40200', '경북', '울릉군', '울릉읍 울릉순환로 9', '도동리 12', '울릉군청'],
  ['23008', '인천', '강화군', '강화읍 강화대로 394', '관청리 163', '강화군청'],
];

const standinScript = `(function () {
  var w = window, d = document;
  if (w.daum && w.daum.Postcode) return;
  var ADDRESSES = ${JSON.stringify(ADDRESSES)};
  function entry(a) {
    var sido = a[1], sigungu = a[2], head = (sido + ' ' + sigungu).replace(/ +$/, '');
    return { zonecode: a[0], sido: sido, sigungu: sigungu, roadAddress: head + ' ' + a[3], jibunAddress: head + ' ' + a[4], address: head + ' ' + a[3],
      buildingName: a[5], apartment: 'N', addressType: 'R', userSelectedType: 'R', autoRoadAddress: '', autoJibunAddress: '', bname: '', query: '' };
  }
  function search(q) {
    var words = q.trim().split(/\\s+/).filter(Boolean);
    if (!words.length) return [];
    return ADDRESSES.map(entry).filter(function (e) {
      var text = [e.zonecode, e.roadAddress, e.jibunAddress, e.buildingName].join(' ');
      return words.every(function (word) { return text.indexOf(word) >= 0; });
    });
  }
  function Postcode(options) { this.options = options || {}; }
  Postcode.prototype.embed = function (element, how) { this._render(element, (how && how.q) || '', false); };
  Postcode.prototype.open = function (how) {
    var layer = d.createElement('div');
    layer.setAttribute('style', 'position:fixed;inset:0;z-index:2147483647;background:rgba(0,0,0,.4);display:flex;align-items:flex-start;justify-content:center;padding:6vh 12px');
    var box = d.createElement('div');
    box.setAttribute('style', 'background:#fff;border-radius:12px;width:min(480px,100%);max-height:80vh;overflow:auto;padding:16px;font:15px/1.5 system-ui,sans-serif;color:#1d2125');
    layer.appendChild(box);
    d.body.appendChild(layer);
    this._layer = layer;
    this._render(box, (how && how.q) || '', true);
  };
  Postcode.prototype._close = function (state) {
    if (this._layer) { this._layer.remove(); this._layer = null; }
    if (this.options.onclose) this.options.onclose(state);
  };
  Postcode.prototype._render = function (root, q, closable) {
    var self = this;
    root.innerHTML = '';
    var head = d.createElement('div');
    head.setAttribute('style', 'display:flex;justify-content:space-between;align-items:center;margin-bottom:8px');
    head.innerHTML = '<strong>주소 검색</strong><small style="color:#6b7280">svc dev 주소 검색 (오프라인 예시 주소)</small>';
    var form = d.createElement('form');
    form.setAttribute('role', 'search');
    form.setAttribute('style', 'display:flex;gap:8px');
    var input = d.createElement('input');
    input.type = 'search'; input.name = 'postcode-query'; input.value = q; input.placeholder = '도로명, 건물명, 지번 (예: 테헤란로 152)';
    input.setAttribute('aria-label', '주소 검색어');
    input.setAttribute('style', 'flex:1;padding:10px;border:1px solid #d0d7de;border-radius:8px;font-size:16px');
    var go = d.createElement('button');
    go.type = 'submit'; go.textContent = '검색';
    go.setAttribute('style', 'padding:10px 16px;border:0;border-radius:8px;background:#1f6feb;color:#fff;font-size:15px');
    form.appendChild(input); form.appendChild(go);
    var list = d.createElement('ul');
    list.setAttribute('style', 'list-style:none;margin:12px 0 0;padding:0');
    list.setAttribute('data-postcode-results', '');
    function show() {
      var found = search(input.value);
      list.innerHTML = '';
      if (!found.length) {
        var none = d.createElement('li');
        none.setAttribute('style', 'color:#6b7280;padding:8px 0');
        none.textContent = input.value.trim() ? '찾는 주소가 없습니다. 도로명과 건물 번호로 검색해 보세요.' : '도로명, 건물명 또는 지번을 입력하세요.';
        list.appendChild(none);
      }
      found.forEach(function (e) {
        var li = d.createElement('li');
        var pick = d.createElement('button');
        pick.type = 'button';
        pick.setAttribute('style', 'display:block;width:100%;text-align:left;padding:10px 4px;border:0;border-bottom:1px solid #eee;background:none;font:inherit;cursor:pointer');
        pick.innerHTML = '<b></b> <span></span><br><small style="color:#6b7280"></small>';
        pick.children[0].textContent = e.zonecode;
        pick.children[1].textContent = e.roadAddress + (e.buildingName ? ' (' + e.buildingName + ')' : '');
        pick.children[3].textContent = '지번 ' + e.jibunAddress;
        pick.addEventListener('click', function () {
          e.query = input.value;
          if (self.options.oncomplete) self.options.oncomplete(e);
          if (closable) self._close('COMPLETE_CLOSE');
        });
        li.appendChild(pick);
        list.appendChild(li);
      });
    }
    form.addEventListener('submit', function (ev) { ev.preventDefault(); show(); });
    root.appendChild(head); root.appendChild(form); root.appendChild(list);
    if (closable) {
      var close = d.createElement('button');
      close.type = 'button'; close.textContent = '닫기';
      close.setAttribute('style', 'margin-top:12px;padding:8px 16px;border:1px solid #d0d7de;border-radius:8px;background:#fff;font-size:15px');
      close.addEventListener('click', function () { self._close('FORCE_CLOSE'); });
      root.appendChild(close);
    }
    show();
    input.focus();
  };
  w.daum = w.daum || {};
  w.daum.Postcode = Postcode;
})();
`;

/** The stand-in, or a redirect to the script the deployment names (`StorefrontConfig.postcodeScript`). */
export function mountPostcode(app: H3, services: Services) {
  const target = services.config.storefront.postcodeScript;
  app.get(POSTCODE_PATH, () =>
    target === 'standin'
      ? new Response(standinScript, { headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=300' } })
      : new Response(null, { status: 302, headers: { location: target, 'cache-control': 'public, max-age=300' } }),
  );
}
