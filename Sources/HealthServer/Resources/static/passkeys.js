// Passkeys: the two WebAuthn ceremonies, talking to this server only (see docs/passkeys.md).
// The sign-in page has #sign-in-passkey; the passkey page has #add-passkey. Buffers travel as
// base64url text, the server's challenges are single use, and nothing is stored here.
"use strict";
(function () {
  function toBase64URL(buffer) {
    const bytes = new Uint8Array(buffer);
    let text = "";
    for (const b of bytes) text += String.fromCharCode(b);
    return btoa(text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function fromBase64URL(text) {
    const padded = text.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((text.length + 3) % 4);
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  }
  async function post(path, body) {
    const response = await fetch(path, {
      method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
    });
    const json = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(json.error || "The server answered " + response.status + ".");
    return json;
  }
  function say(text) {
    const status = document.getElementById("passkey-status");
    if (status) status.textContent = text;
  }

  async function signIn(next) {
    const options = await post("/login/passkey/options", {});
    options.challenge = fromBase64URL(options.challenge);
    const credential = await navigator.credentials.get({ publicKey: options });
    const r = credential.response;
    const answer = await post("/login/passkey", {
      next: next,
      credential: {
        type: credential.type, id: credential.id, rawId: toBase64URL(credential.rawId),
        response: {
          clientDataJSON: toBase64URL(r.clientDataJSON), authenticatorData: toBase64URL(r.authenticatorData),
          signature: toBase64URL(r.signature), userHandle: r.userHandle ? toBase64URL(r.userHandle) : null,
        },
      },
    });
    window.location.assign(answer.next || "/");
  }

  async function enrol(csrf, name) {
    const options = await post("/passkeys/options", { csrf: csrf });
    options.challenge = fromBase64URL(options.challenge);
    options.user.id = fromBase64URL(options.user.id);
    options.excludeCredentials = (options.excludeCredentials || []).map((c) => ({ type: c.type, id: fromBase64URL(c.id) }));
    const credential = await navigator.credentials.create({ publicKey: options });
    const r = credential.response;
    return post("/passkeys", {
      csrf: csrf, name: name,
      credential: {
        type: credential.type, id: credential.id, rawId: toBase64URL(credential.rawId),
        response: { clientDataJSON: toBase64URL(r.clientDataJSON), attestationObject: toBase64URL(r.attestationObject) },
      },
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    const signInButton = document.getElementById("sign-in-passkey");
    if (signInButton) {
      if (!window.PublicKeyCredential) { signInButton.disabled = true; say("This browser has no passkeys."); }
      signInButton.addEventListener("click", function () {
        say("Waiting for your passkey…");
        signIn(document.getElementById("passkey-sign-in").dataset.next).catch((e) => say(e.message));
      });
    }
    const addButton = document.getElementById("add-passkey");
    if (addButton) {
      if (!window.PublicKeyCredential) { addButton.disabled = true; say("This browser has no passkeys."); }
      addButton.addEventListener("click", function () {
        say("Waiting for your device…");
        const csrf = document.getElementById("enrol").dataset.csrf;
        enrol(csrf, document.getElementById("passkey-name").value).then(function (answer) {
          const codes = answer.recoveryCodes || [];
          if (codes.length === 0) { window.location.reload(); return; }
          say("Passkey \u201c" + answer.name + "\u201d added. Keep these recovery codes somewhere safe; they are shown only now:");
          const list = document.getElementById("recovery-codes");
          for (const code of codes) { const item = document.createElement("li"); item.textContent = code; list.appendChild(item); }
          list.hidden = false;
        }).catch((e) => say(e.message));
      });
    }
  });
})();
