import { qs, site } from './site.js';

/** What the postcode service hands back for a picked address (the fields this page uses). */
interface PostcodeAddress {
  zonecode: string;
  roadAddress: string;
  buildingName: string;
}
type PostcodeService = new (options: { oncomplete: (address: PostcodeAddress) => void }) => { open(): void };

/**
 * The postcode service's script, loaded on the first search. The service answers `/_svc/postcode.v2.js` on
 * the site's own origin: Daum's postcode script in a live shop, an offline stand-in with the same interface in svc dev.
 */
let loading: Promise<PostcodeService> | null = null;
function postcodeService(): Promise<PostcodeService> {
  loading ??= new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = new URL('/_svc/postcode.v2.js', site.config.storefrontApiUrl).href;
    script.onload = () => resolve((window as unknown as { daum: { Postcode: PostcodeService } }).daum.Postcode);
    script.onerror = () => {
      loading = null;
      reject(new Error('postcode script unavailable'));
    };
    document.head.append(script);
  });
  return loading;
}

/** "주소 검색": fills the postcode and the road address, then asks for the detail; typing by hand still works. */
export function initAddressSearch() {
  const button = qs<HTMLButtonElement>('[data-address-search]');
  const form = button?.closest('form');
  if (!button || !form) return;
  const field = (name: string) => form.querySelector<HTMLInputElement>(`input[name="${name}"]`)!;
  button.hidden = false;
  button.addEventListener('click', async () => {
    try {
      const Postcode = await postcodeService();
      new Postcode({
        oncomplete(address) {
          const zip = field('shippingAddress.zipCode');
          zip.value = address.zonecode;
          field('shippingAddress.address1').value = address.buildingName ? `${address.roadAddress} (${address.buildingName})` : address.roadAddress;
          // The remote-area surcharge follows the postcode (the checkout script listens for this).
          zip.dispatchEvent(new Event('change'));
          field('shippingAddress.address2').focus();
        },
      }).open();
    } catch {
      button.hidden = true;
      field('shippingAddress.zipCode').focus();
    }
  });
}
