// The dashboard script (/ui/app.js), kept in C++ so the binary serves it.
#include "dashboard_assets.hpp"

namespace yuzu::web {

namespace {

constexpr char kScript[] = R"js(
// Yuzu dashboard script, served as /ui/app.js. The pages are rendered on the
// server; this adds sign-in, TOTP enrolment and approve/reject. Every text
// that comes from the server is set with textContent, never as HTML.
'use strict';

(function () {
  function csrfToken() {
    const meta = document.querySelector('meta[name="yuzu-csrf"]');
    return meta ? meta.getAttribute('content') : '';
  }

  // Calls a JSON endpoint; resolves to the parsed body (or null), rejects
  // with an Error whose message is the server's, plus the correlation id.
  async function api(method, path, body) {
    const headers = { Accept: 'application/json' };
    const init = { method, headers, credentials: 'same-origin' };
    if (method !== 'GET') headers['X-CSRF-Token'] = csrfToken();
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    let res;
    try {
      res = await fetch(path, init);
    } catch (err) {
      throw new Error('The server could not be reached: ' + err.message);
    }
    const text = await res.text();
    let data = null;
    if (text) {
      try {
        data = JSON.parse(text);
      } catch (err) {
        data = null;
      }
    }
    if (!res.ok) {
      const detail = data && data.error ? data.error : {};
      let message = detail.message || 'HTTP ' + res.status;
      if (detail.correlation_id) message += ' (correlation id ' + detail.correlation_id + ')';
      const err = new Error(message);
      err.status = res.status;
      throw err;
    }
    return data;
  }

  function showText(el, text) {
    if (!el) return;
    el.textContent = text;
    el.hidden = !text;
  }

  function isTotpCode(code) {
    return /^[0-9]{6}$/.test(code);
  }

  // --- sign-in page ---------------------------------------------------------
  function initLogin() {
    const form = document.getElementById('login-form');
    const error = document.getElementById('login-error');
    if (!form) return;
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      showText(error, '');
      const fields = new FormData(form);
      const button = form.querySelector('button[type="submit"]');
      button.disabled = true;
      try {
        await api('POST', '/login', {
          username: String(fields.get('username') || ''),
          password: String(fields.get('password') || ''),
        });
        window.location.assign(form.dataset.next || '/approvals');
      } catch (err) {
        showText(error, err.message);
        button.disabled = false;
      }
    });
  }

  // --- TOTP enrolment (shown while the user has no active factor) ----------
  function initEnrolment() {
    const section = document.getElementById('mfa-enrol');
    if (!section) return;
    const start = document.getElementById('enrol-start');
    const details = document.getElementById('enrol-details');
    const activate = document.getElementById('enrol-activate');
    const error = document.getElementById('enrol-error');
    start.addEventListener('click', async () => {
      showText(error, '');
      start.disabled = true;
      try {
        const enrolment = await api('POST', '/api/v1/mfa/totp/enroll', {});
        document.getElementById('enrol-secret').textContent = enrolment.secret;
        document.getElementById('enrol-uri').textContent = enrolment.otpauth_uri;
        details.hidden = false;
        document.getElementById('enrol-code').focus();
      } catch (err) {
        showText(error, err.message);
      } finally {
        start.disabled = false;
      }
    });
    activate.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      showText(error, '');
      const code = document.getElementById('enrol-code').value.trim();
      if (!isTotpCode(code)) {
        showText(error, 'Enter the 6-digit code your authenticator app shows.');
        return;
      }
      try {
        await api('POST', '/api/v1/mfa/totp/activate', { code });
        window.location.reload();
      } catch (err) {
        showText(error, err.message);
      }
    });
  }

  // --- approve / reject -----------------------------------------------------
  function initApprovals() {
    const table = document.getElementById('approvals');
    const dialog = document.getElementById('totp-dialog');
    if (!table || !dialog) return;
    const form = document.getElementById('totp-form');
    const title = document.getElementById('totp-title');
    const codeRow = document.getElementById('totp-code-row');
    const codeInput = document.getElementById('totp-code');
    const comment = document.getElementById('totp-comment');
    const error = document.getElementById('totp-error');
    const confirm = document.getElementById('totp-confirm');
    const status = document.getElementById('approvals-status');
    const empty = document.getElementById('approvals-empty');
    // A step-up proof is good for a few minutes; while it is, a decision
    // needs no new code. A margin keeps clock drift from costing an attempt.
    const marginMs = 15000;
    let proofUntil = Date.now() + Number(document.body.dataset.mfaValidMs || 0) - marginMs;
    let pending = null;

    function needsCode() {
      return Date.now() >= proofUntil;
    }

    function openPrompt(row, action) {
      pending = { row, action, id: row.dataset.approvalId };
      const tool = row.querySelector('.tool').textContent;
      title.textContent =
        (action === 'approve' ? 'Approve ' : 'Reject ') + tool + ' (request ' + pending.id + ')';
      confirm.textContent = action === 'approve' ? 'Approve' : 'Reject';
      codeInput.value = '';
      comment.value = '';
      codeRow.hidden = !needsCode();
      codeInput.required = !codeRow.hidden;
      showText(error, '');
      dialog.showModal();
      (codeRow.hidden ? comment : codeInput).focus();
    }

    function rowsLeft() {
      return table.querySelectorAll('tbody tr[data-approval-id]').length;
    }

    async function decide() {
      const { row, action, id } = pending;
      if (!codeRow.hidden) {
        const code = codeInput.value.trim();
        if (!isTotpCode(code)) {
          showText(error, 'Enter the 6-digit code your authenticator app shows.');
          return;
        }
        const proof = await api('POST', '/api/v1/mfa/verify', { code });
        proofUntil = Date.now() + Number(proof.valid_for_seconds || 0) * 1000 - marginMs;
      }
      try {
        await api('POST', '/api/v1/approvals/' + encodeURIComponent(id) + '/' + action,
          { comment: comment.value });
      } catch (err) {
        // A refused decision may mean the proof ran out: ask for a code next.
        if (err.status === 401 || err.status === 403) proofUntil = 0;
        throw err;
      }
      dialog.close();
      row.remove();
      if (rowsLeft() === 0) empty.hidden = false;
      showText(status, (action === 'approve' ? 'Approved' : 'Rejected') + ' request ' + id + '.');
    }

    table.addEventListener('click', (ev) => {
      const button = ev.target.closest('button[data-action]');
      if (!button || button.disabled) return;
      const row = button.closest('tr[data-approval-id]');
      if (row) openPrompt(row, button.dataset.action);
    });

    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (!pending) return;
      showText(error, '');
      confirm.disabled = true;
      try {
        await decide();
      } catch (err) {
        showText(error, err.message);
        codeRow.hidden = !needsCode();
        codeInput.required = !codeRow.hidden;
      } finally {
        confirm.disabled = false;
      }
    });

    document.getElementById('totp-cancel').addEventListener('click', () => {
      pending = null;
      dialog.close();
    });
  }

  function init() {
    const page = document.body.dataset.page;
    if (page === 'login') initLogin();
    if (page === 'approvals') {
      initEnrolment();
      initApprovals();
    }
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
)js";

}  // namespace

std::string_view dashboard_script() {
    return {kScript, sizeof kScript - 1};
}

}  // namespace yuzu::web
