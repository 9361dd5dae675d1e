/**
 * The one script a server-rendered page includes (`<script type="module" src="/assets/web/enhance-auto.js">`):
 * enhances every form rendered by `forms/render-html.ts` on it, keeping the native form-encoded submit.
 * A module script runs after the document is parsed, so the forms are already there.
 */
import { enhanceForm } from './enhance.js';

for (const form of document.querySelectorAll<HTMLFormElement>('form[data-askgate-form]')) {
  enhanceForm(form);
}
