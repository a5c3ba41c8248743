// @ts-check
// The program's other files (Compiler Explorer's multi-file mode): headers and modules sent
// beside the program in every compile, as the API's `files`. A row of radio buttons above the
// editor switches between the program and each file (the arrow keys move between them); a
// file can be added, renamed and removed. The page owns the state: this module shows the
// files it is given and reports each change through `onChange`.
import { createEditor } from './editor.js';
import { MAX_FILES, isFileName, programName } from './files.js';

/** @typedef {import('./files.js').ExtraFile} ExtraFile */

const FILE_EXTENSIONS = { c: 'h', cpp: 'hpp', rust: 'rs', javascript: 'js', java: 'java' };
const LANG_OF_EXTENSION = { c: 'c', h: 'c', cpp: 'cpp', cc: 'cpp', hpp: 'cpp', hh: 'cpp', rs: 'rust', js: 'javascript', mjs: 'javascript', cjs: 'javascript', java: 'java' };

export class FileTabs {
  /**
   * @param {{bar: HTMLElement, programEl: HTMLElement, fileEl: HTMLElement, nameInput: HTMLInputElement,
   *   removeButton: HTMLButtonElement, tools: HTMLElement, readOnly: boolean, files: () => ExtraFile[],
   *   lang: () => string, onChange: (files: ExtraFile[]) => void}} o
   */
  constructor(o) {
    this.o = o;
    this.active = -1; // -1: the program
    this.loading = false;
    this.lang = ''; // the file editor's highlighting
    this.editor = createEditor(o.fileEl, {
      label: 'File',
      readOnly: o.readOnly,
      onChange: (text) => {
        // (an edit of the text changes nothing else on show)
        if (!this.loading) this.o.onChange(this.o.files().map((f, i) => (i === this.active ? { ...f, contents: text } : f)));
      },
    });
    o.nameInput.addEventListener('change', () => this.rename(o.nameInput.value.trim()));
    o.removeButton.addEventListener('click', () => {
      const files = this.o.files().filter((_, i) => i !== this.active);
      this.active = -1;
      this.change(files);
    });
    this.render();
  }

  /** @param {ExtraFile[]} files */
  change(files) {
    this.o.onChange(files);
    this.render();
  }

  rename(name) {
    const files = this.o.files();
    const taken = files.some((f, i) => i !== this.active && f.filename === name);
    const why = !isFileName(name)
      ? 'a relative path of letters, digits, _ - + and . (no part starting with .), not example.*'
      : taken
        ? 'another file has that name'
        : '';
    this.o.nameInput.setCustomValidity(why);
    if (why) {
      this.o.nameInput.reportValidity();
      return;
    }
    this.change(files.map((f, i) => (i === this.active ? { ...f, filename: name } : f)));
  }

  add() {
    const files = this.o.files();
    if (files.length >= MAX_FILES) return;
    const ext = FILE_EXTENSIONS[this.o.lang()] ?? 'h';
    let n = files.length + 1;
    while (files.some((f) => f.filename === `file${n}.${ext}`)) n++;
    this.active = files.length;
    this.change([...files, { filename: `file${n}.${ext}`, contents: '' }]);
    this.o.nameInput.focus();
    this.o.nameInput.select();
  }

  /** Shows the program (-1) or file `i`. @param {number} i */
  show(i) {
    this.active = i;
    this.render();
  }

  /** Draws the row of tabs: the program's (value -1) and each file's, then *+ File*.
   *  @param {string[]} names */
  drawRow(names) {
    const choice = (value, label) => {
      const l = document.createElement('label');
      const input = document.createElement('input');
      Object.assign(input, { type: 'radio', name: 'file-shown', value: String(value), checked: value === this.active });
      input.addEventListener('change', () => this.show(value));
      l.append(input, ` ${label}`);
      return l;
    };
    const group = document.createElement('div');
    group.className = 'segmented';
    group.setAttribute('role', 'radiogroup');
    group.setAttribute('aria-label', 'File shown');
    group.append(...names.map((name, i) => choice(i - 1, name)));
    /** @type {HTMLElement[]} */
    const parts = [group];
    if (!this.o.readOnly && names.length - 1 < MAX_FILES) {
      const add = document.createElement('button');
      add.type = 'button';
      add.textContent = '+ File';
      add.title = 'Add a file beside the program (a header, a module): every compile gets it';
      add.addEventListener('click', () => this.add());
      parts.push(add);
    }
    this.o.bar.replaceChildren(...parts);
  }

  /** Draws the row and the editor shown, from the files as they now are (call after the
   *  state was replaced: a link, storage). */
  render() {
    const { bar, programEl, fileEl, tools, readOnly } = this.o;
    const files = this.o.files();
    if (this.active >= files.length) this.active = -1;
    const names = [programName(this.o.lang()), ...files.map((f) => f.filename)];
    const group = bar.querySelector('[role=radiogroup]');
    const labels = group ? [...group.querySelectorAll('label')] : [];
    if (labels.length === names.length) {
      // The same tabs: renamed in place (a row drawn anew would lose a click under way).
      labels.forEach((l, i) => {
        if (l.lastChild) l.lastChild.textContent = ` ${names[i]}`;
        /** @type {HTMLInputElement} */ (l.firstChild).checked = i - 1 === this.active;
      });
    } else {
      this.drawRow(names);
    }
    // A read-only page (an embed) with no files shows no row at all.
    bar.hidden = readOnly && files.length === 0;
    programEl.hidden = this.active !== -1;
    fileEl.hidden = this.active === -1;
    tools.hidden = this.active === -1 || readOnly;
    if (this.active === -1) return;
    const file = files[this.active];
    if (document.activeElement !== this.o.nameInput) this.o.nameInput.value = file.filename;
    this.o.nameInput.setCustomValidity('');
    if (this.editor.getText() !== file.contents) {
      this.loading = true;
      this.editor.setText(file.contents);
      this.loading = false;
    }
    const lang = LANG_OF_EXTENSION[file.filename.split('.').pop() ?? ''] ?? this.o.lang();
    if (lang !== this.lang) this.editor.setLang((this.lang = lang));
  }
}
