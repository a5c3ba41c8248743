// The settings sidebar: the form's changes become new states (applyForm in state.js), the
// compiler list follows the endpoint and language, and a link's JavaScript property waits
// for the person's leave to run.
import { applyForm, autoSeeded, isPair, propertyOf, sideName, usesJs } from './state.js';
import { fillCompilers, readForm, showFields, writeForm } from './form.js';
import { listCompilers } from './endpoint.js';
import { compilerFor, defaultCompiler, langName } from './lang-defaults.js';
import { $ } from './ui.js';

export class SettingsPanel {
  /**
   * state(): the page's state; variantLang(): the language the variant parsed as (for 'auto');
   * onChange(next): the person changed the form; onCompiler(id, flags): the compiler list
   * chose a compiler (and the flags that go with it for the language);
   * onTrust(): the JavaScript property was allowed to run (Run: it allows the whole link);
   * mayContact(): whether the endpoint may be asked for its compilers now (not from an embed,
   * nor from a link the person has not allowed yet).
   */
  constructor({ state, variantLang, onChange, onCompiler, onTrust, mayContact = () => true }) {
    Object.assign(this, { state, variantLang, onChange, onCompiler, onTrust, mayContact });
    /** @type {import('./types.js').Side} the side whose property the form shows */
    this.propSide = 'variant';
    this.jsTrusted = true;
    this.compilerLoad = 0;
    this.listLang = null; // the language of the compiler list shown
    for (const el of document.querySelectorAll('#sidebar input:not([name=prop-side]), #sidebar select, #sidebar textarea, #lang, #strategy, #mode')) {
      el.addEventListener(el.matches('input[type=text], input[type=url], textarea') ? 'input' : 'change', (e) => this.formChanged(e));
    }
    for (const r of document.querySelectorAll('input[name=prop-side]')) {
      r.addEventListener('change', () => {
        this.propSide = r.value;
        this.write();
        this.showCheckLabel();
      });
    }
    $('compilers-reload').addEventListener('click', () => this.loadCompilers());
    $('js-run').addEventListener('click', () => {
      this.jsTrusted = true;
      this.showJsTrust();
      this.onTrust();
    });
  }

  /** At start-up: fill the form from the state. A link's JavaScript property is not trusted. */
  start({ jsTrusted }) {
    this.jsTrusted = jsTrusted;
    this.write();
    this.showJsTrust();
  }

  write() {
    writeForm(this.state(), this.propSide);
  }

  /** One program has one property, and so has a pair with an automatic seed: back to the
   *  variant's. */
  modeChanged() {
    if (!isPair(this.state()) || autoSeeded(this.state())) this.propSide = 'variant';
    for (const r of document.querySelectorAll('input[name=prop-side]')) r.checked = r.value === this.propSide;
    this.showCheckLabel();
  }

  showCheckLabel() {
    $('check').textContent = `Check the ${sideName(this.state(), this.propSide)}`;
  }

  formChanged(e) {
    const before = this.state();
    const next = applyForm(before, readForm(), this.propSide);
    if (next.endpoint.kind !== before.endpoint.kind) $('k').value = String(next.settings.k);
    showFields(next, this.propSide);
    if (e?.target?.id === 'prop-js') this.jsTrusted = true; // they wrote or edited it: their own code
    this.onChange(next);
    if (autoSeeded(next) && this.propSide === 'seed') {
      // The seed's property is now derived: show the variant's.
      this.modeChanged();
      this.write();
    }
    const compilersChanged = next.endpoint.kind !== before.endpoint.kind || next.endpoint.base !== before.endpoint.base || next.lang !== before.lang;
    if (compilersChanged) this.loadCompilers();
    this.showJsTrust();
  }

  async loadCompilers() {
    const state = this.state();
    if (state.endpoint.kind === 'none') return;
    const n = ++this.compilerLoad;
    const errorEl = $('compilers-error');
    errorEl.hidden = true;
    if (!this.mayContact()) {
      // A link's endpoint is not contacted before the person allows the link: show its compiler.
      this.compilerLoad++;
      this.onCompiler(fillCompilers([], state.compiler, this.wrongCode()));
      errorEl.textContent = 'The compiler list comes from the endpoint once you allow this link (see the top of the page).';
      errorEl.hidden = false;
      return;
    }
    const lang = state.lang === 'auto' ? (this.variantLang() ?? 'c') : state.lang;
    let list = [];
    try {
      list = await listCompilers(state.endpoint, lang);
      if (list.length === 0) throw new Error(`the endpoint has no compilers for ${lang}`);
    } catch (e) {
      if (n !== this.compilerLoad) return;
      errorEl.textContent = e.message;
      errorEl.hidden = false;
    }
    if (n !== this.compilerLoad) return;
    const { compiler, flags } = this.state();
    if (list.length === 0) return this.onCompiler(fillCompilers(list, compiler, this.wrongCode())); // the error says why
    // The language decides: a compiler the endpoint does not list for it goes (and says so).
    const preferred = await defaultCompiler(state.endpoint, lang);
    if (n !== this.compilerLoad) return;
    const chosen = compilerFor({ list, current: compiler, flags, lang, previousLang: this.listLang ?? lang, preferred });
    this.listLang = lang;
    fillCompilers(list, chosen.compiler, this.wrongCode());
    if (chosen.flags !== flags) $('flags').value = chosen.flags;
    const note = $('compiler-note');
    note.hidden = !chosen.replaced;
    note.textContent = chosen.replaced
      ? `${chosen.replaced} does not compile ${langName(lang)} here: now ${chosen.compiler}${chosen.flags ? ` with ${chosen.flags}` : ''}, the endpoint’s default.`
      : '';
    this.onCompiler(chosen.compiler, chosen.flags);
  }

  /** The language the compiler list is for: after a change (auto-detected, say), reload it. */
  langSeen(lang) {
    if (this.listLang && lang !== this.listLang) this.loadCompilers();
  }

  /** The wrong-code builds of the property shown (their compiler selects share the list). */
  wrongCode() {
    return propertyOf(this.state(), this.propSide).wrongCode;
  }

  showJsTrust() {
    $('js-trust').hidden = this.jsTrusted || !usesJs(this.state());
  }
}
