// The SMART Health Link viewer: reads `#shlink:/…` from this page's fragment (which browsers
// never send to a server), fetches the link's files, decrypts them here with WebCrypto
// (A256GCM, raw DEFLATE when `zip` is DEF) and shows them as text. Nothing from a file is ever
// inserted as HTML: every value goes through textContent.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const utf8 = new TextDecoder();

  function bytes(b64url) {
    let s = b64url.replace(/-/g, "+").replace(/_/g, "/");
    while (s.length % 4) s += "=";
    const bin = atob(s);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }

  function say(text, warning) {
    const p = $("status");
    p.textContent = text;
    p.className = warning ? "warning" : "";
  }

  function readLink() {
    const fragment = decodeURIComponent(location.hash.slice(1));
    const at = fragment.indexOf("shlink:/");
    if (at < 0) return null;
    const link = JSON.parse(utf8.decode(bytes(fragment.slice(at + 8))));
    if (typeof link.url !== "string" || typeof link.key !== "string" || link.key.length !== 43) throw new Error("the link is damaged");
    return link;
  }

  async function inflateRaw(data) {
    const stream = new Blob([data]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }

  async function decrypt(compact, key) {
    const parts = compact.trim().split(".");
    if (parts.length !== 5) throw new Error("a file is not encrypted as a link's files must be");
    const header = JSON.parse(utf8.decode(bytes(parts[0])));
    if (header.alg !== "dir" || header.enc !== "A256GCM") throw new Error("a file uses an unknown encryption");
    const ciphertext = bytes(parts[3]);
    const tag = bytes(parts[4]);
    const sealed = new Uint8Array(ciphertext.length + tag.length);
    sealed.set(ciphertext);
    sealed.set(tag, ciphertext.length);
    const plain = new Uint8Array(await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes(parts[2]), additionalData: new TextEncoder().encode(parts[0]), tagLength: 128 }, key, sealed));
    return { header, content: header.zip === "DEF" ? await inflateRaw(plain) : plain };
  }

  function element(tag, text, className) {
    const e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (className) e.className = className;
    return e;
  }

  const systems = { "http://hl7.org/fhir/sid/cvx": "CVX", "http://loinc.org": "LOINC", "http://snomed.info/sct": "SNOMED CT",
    "http://www.nlm.nih.gov/research/umls/rxnorm": "RxNorm" };

  function concept(c) {
    if (!c) return "";
    if (c.text) return c.text;
    const coding = (c.coding || []).find((x) => x.display) || (c.coding || [])[0];
    if (!coding) return "";
    return coding.display || ((systems[coding.system] || coding.system || "code") + " " + (coding.code || ""));
  }

  function describe(r) {
    const what = concept(r.code) || concept(r.vaccineCode) || concept(r.medicationCodeableConcept) || concept(r.type) ||
      (r.medicationReference && r.medicationReference.display) || r.resourceType;
    const when = r.effectiveDateTime || r.occurrenceDateTime || r.onsetDateTime || r.recordedDate || r.performedDateTime || r.authoredOn || "";
    let value = "";
    if (r.valueQuantity) value = " " + r.valueQuantity.value + " " + (r.valueQuantity.unit || r.valueQuantity.code || "");
    else if (r.valueString) value = " " + r.valueString;
    else if (r.valueCodeableConcept) value = " " + concept(r.valueCodeableConcept);
    return what + value + (when ? " · " + String(when).slice(0, 10) : "");
  }

  function patientLine(p) {
    const n = (p.name || [])[0] || {};
    const name = n.text || [].concat(n.given || [], n.family ? [n.family] : []).join(" ");
    return (name || "Unnamed patient") + (p.birthDate ? " · born " + p.birthDate : "");
  }

  function section(title, lines, id) {
    const s = element("section", undefined, "card");
    if (id) s.id = id;
    s.appendChild(element("h2", title));
    if (!lines.length) s.appendChild(element("p", "Nothing recorded.", "meta"));
    const ul = element("ul", undefined, "records");
    for (const line of lines) ul.appendChild(element("li", line));
    s.appendChild(ul);
    return s;
  }

  function showBundle(bundle, out) {
    const entries = bundle.entry || [];
    const byURL = new Map(entries.map((e) => [e.fullUrl, e.resource || {}]));
    const patient = entries.map((e) => e.resource || {}).find((r) => r.resourceType === "Patient");
    if (patient) out.appendChild(element("p", patientLine(patient), "patient"));
    const composition = entries.length && entries[0].resource && entries[0].resource.resourceType === "Composition" ? entries[0].resource : null;
    if (composition) {
      out.appendChild(element("h2", composition.title || "Patient summary"));
      for (const s of composition.section || []) {
        const lines = (s.entry || []).map((ref) => byURL.get(ref.reference)).filter(Boolean).map(describe);
        out.appendChild(section(s.title || concept(s.code), lines, "section-" + ((s.code && s.code.coding && s.code.coding[0].code) || "")));
      }
      return;
    }
    const groups = new Map();
    for (const e of entries) {
      const r = e.resource || {};
      if (r.resourceType === "Patient" || r.resourceType === "Provenance") continue;
      if (!groups.has(r.resourceType)) groups.set(r.resourceType, []);
      groups.get(r.resourceType).push(describe(r));
    }
    for (const [type, lines] of groups) out.appendChild(section(type, lines, "type-" + type));
  }

  async function showCards(file, out) {
    for (const jws of file.verifiableCredential || []) {
      const payload = await inflateRaw(bytes(String(jws).split(".")[1] || ""));
      const vc = JSON.parse(utf8.decode(payload));
      const bundle = ((vc.vc || {}).credentialSubject || {}).fhirBundle || {};
      const lines = (bundle.entry || []).map((e) => e.resource || {}).filter((r) => r.resourceType !== "Patient").map(describe);
      const patient = (bundle.entry || []).map((e) => e.resource || {}).find((r) => r.resourceType === "Patient");
      const s = section("SMART Health Card" + (patient ? " · " + patientLine(patient) : ""), lines);
      s.classList.add("shc");
      s.appendChild(element("p", "Issued by " + (vc.iss || "an unknown issuer") + ". Its signature is not checked in this viewer.", "meta"));
      out.appendChild(s);
    }
  }

  async function open(link, recipient, passcode) {
    const key = await crypto.subtle.importKey("raw", bytes(link.key), "AES-GCM", false, ["decrypt"]);
    let files;
    if ((link.flag || "").includes("U")) {
      const r = await fetch(link.url + (link.url.includes("?") ? "&" : "?") + "recipient=" + encodeURIComponent(recipient));
      if (!r.ok) return refused(r);
      files = [{ contentType: null, jwe: await r.text() }];
    } else {
      const body = { recipient, embeddedLengthMax: 1000000 };
      if (passcode) body.passcode = passcode;
      const r = await fetch(link.url, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) });
      if (!r.ok) return refused(r);
      files = [];
      for (const f of (await r.json()).files || []) {
        if (f.embedded) files.push({ contentType: f.contentType, jwe: f.embedded });
        else {
          const got = await fetch(f.location);
          if (!got.ok) return refused(got);
          files.push({ contentType: f.contentType, jwe: await got.text() });
        }
      }
    }
    const out = $("records");
    out.textContent = "";
    for (const f of files) {
      const { header, content } = await decrypt(f.jwe, key);
      const type = f.contentType || header.cty;
      const json = JSON.parse(utf8.decode(content));
      if (type === "application/smart-health-card") await showCards(json, out);
      else if (type === "application/fhir+json" && json.resourceType === "Bundle") showBundle(json, out);
      else out.appendChild(section("A file this viewer cannot show (" + type + ")", []));
    }
    $("open-form").hidden = true;
    say("Opened " + files.length + " file" + (files.length === 1 ? "" : "s") + (link.label ? " · " + link.label : "") + ".");
  }

  async function refused(r) {
    if (r.status === 401) {
      let left = "";
      try { left = " Attempts left: " + (await r.json()).remainingAttempts + "."; } catch (e) { /* no body */ }
      say("Wrong passcode." + left, true);
    } else if (r.status === 404) {
      say("This link is no longer available: it was revoked, it expired, or it never existed.", true);
    } else if (r.status === 429) {
      say("Too many requests; try again in " + (r.headers.get("Retry-After") || "a few") + " seconds.", true);
    } else {
      say("The server refused the link (" + r.status + ").", true);
    }
  }

  function start() {
    let link;
    try { link = readLink(); } catch (e) { return say("This link is damaged: " + e.message, true); }
    if (!link) return say("Open a SMART Health Link here: its address ends in #shlink:/…", true);
    if (link.exp && link.exp * 1000 < Date.now()) return say("This link expired on " + new Date(link.exp * 1000).toISOString().slice(0, 16) + ".", true);
    if (link.label) $("heading").textContent = link.label;
    const passcode = (link.flag || "").includes("P");
    $("passcode-row").hidden = !passcode;
    $("open-form").hidden = false;
    $("open-form").addEventListener("submit", (event) => {
      event.preventDefault();
      say("Opening…");
      open(link, $("recipient").value || "Viewer", passcode ? $("passcode").value : null).catch((e) => say("Could not open the link: " + e.message, true));
    });
    if (!passcode) $("open").focus();
  }

  start();
})();
