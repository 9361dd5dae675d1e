/**
 * The fake Graph API's check of an uploaded Flow JSON: the validation_errors WhatsApp answers a Flow JSON asset
 * upload with, for what askgate's Flows use. Each rule names its source:
 * - FLOWJSON: https://developers.facebook.com/docs/whatsapp/flows/reference/flowjson (version, screens, layout,
 *   terminal screens, data, data_api_version, dynamic references)
 * - COMPONENTS: https://developers.facebook.com/docs/whatsapp/flows/reference/components (component types, their
 *   required properties and the limits on labels, helper texts and options)
 */

type Json = Record<string, unknown>;

export interface FlowValidationError {
  error: string;
  error_type: 'FLOW_JSON_ERROR';
  message: string;
  /** Where in the JSON (a pointer-like path), as WhatsApp reports it. */
  pointers?: string[];
}

/** FLOWJSON "version": the Flow JSON versions WhatsApp accepts (askgate writes 6.3). */
const VERSIONS = new Set(['2.1', '3.0', '3.1', '4.0', '5.0', '5.1', '6.0', '6.1', '6.2', '6.3', '7.0', '7.1']);
/** FLOWJSON "data_api_version": the one data API version, needed only with an endpoint. */
const DATA_API_VERSION = '3.0';
/** FLOWJSON: "SUCCESS" is reserved and may not be a screen id; ids are letters and underscores. */
const SCREEN_ID = /^[A-Za-z_]+$/;
/** FLOWJSON: a screen holds at most 50 components (nested ones counted). */
const COMPONENTS_PER_SCREEN = 50;
/** COMPONENTS: helper-text of an input, "Max length: 80". */
const HELPER_TEXT_MAX = 80;
/**
 * COMPONENTS: the components with a `helper-text` property — TextInput, TextArea and DatePicker. Dropdown,
 * RadioButtonsGroup, CheckboxGroup and OptIn have none; an unknown property fails the upload.
 */
const TAKES_HELPER_TEXT = new Set(['TextInput', 'TextArea', 'DatePicker']);
/** COMPONENTS: a data-source option's title, "Max length: 30". */
const OPTION_TITLE_MAX = 30;
/** COMPONENTS: TextInput / TextArea `input-type`. */
const INPUT_TYPES = new Set(['text', 'number', 'email', 'password', 'passcode', 'phone']);

/** COMPONENTS, per type: whether it needs a `name`, its label limit, and its data-source bounds. */
const INPUTS: Record<string, { label: number; options?: { min: number; max: number } }> = {
  TextInput: { label: 20 },
  TextArea: { label: 20 },
  DatePicker: { label: 40 },
  Dropdown: { label: 20, options: { min: 1, max: 200 } },
  RadioButtonsGroup: { label: 30, options: { min: 1, max: 20 } },
  CheckboxGroup: { label: 30, options: { min: 1, max: 20 } },
  OptIn: { label: 120 },
};
/** COMPONENTS: the display components (no name, no value). */
const DISPLAY = new Set([
  'TextHeading',
  'TextSubheading',
  'TextBody',
  'TextCaption',
  'RichText',
  'EmbeddedLink',
  'Image',
]);
/** COMPONENTS: Footer's label, "Max length: 35". */
const FOOTER_LABEL_MAX = 35;

const len = (v: unknown): number => (typeof v === 'string' ? [...v].length : 0);

/** The `${data.x}` and `${form.x}` names a value refers to (in strings, and in nested objects and arrays). */
function references(value: unknown, kind: 'data' | 'form', into: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string')
    for (const m of value.matchAll(new RegExp(`\\$\\{${kind}\\.([A-Za-z_][A-Za-z0-9_]*)\\}`, 'g')))
      into.add(m[1] as string);
  else if (Array.isArray(value)) for (const v of value) references(v, kind, into);
  else if (typeof value === 'object' && value !== null) for (const v of Object.values(value)) references(v, kind, into);
  return into;
}

/** Every validation error of `json`, in document order; an empty list is a valid Flow JSON. */
export function validateFlowJson(json: unknown): FlowValidationError[] {
  const errors: FlowValidationError[] = [];
  const fail = (error: string, message: string, pointer?: string): void => {
    errors.push({ error, error_type: 'FLOW_JSON_ERROR', message, ...(pointer ? { pointers: [pointer] } : {}) });
  };
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    fail('INVALID_JSON', 'The Flow JSON must be an object.');
    return errors;
  }
  const flow = json as Json;
  if (typeof flow['version'] !== 'string' || !VERSIONS.has(flow['version']))
    fail('INVALID_VERSION', `version must be one of ${[...VERSIONS].join(', ')}.`, '/version');
  const screens = flow['screens'];
  if (!Array.isArray(screens) || screens.length === 0) {
    fail('MISSING_REQUIRED_PROPERTY', 'screens must be a non-empty array.', '/screens');
    return errors;
  }
  // FLOWJSON: data_api_version is required when the Flow uses an endpoint (data_exchange actions, routing_model).
  const usesEndpoint = JSON.stringify(screens).includes('"data_exchange"') || flow['routing_model'] !== undefined;
  if (flow['data_api_version'] !== undefined && flow['data_api_version'] !== DATA_API_VERSION)
    fail('INVALID_PROPERTY_VALUE', `data_api_version must be "${DATA_API_VERSION}".`, '/data_api_version');
  if (usesEndpoint && flow['data_api_version'] === undefined)
    fail('MISSING_REQUIRED_PROPERTY', 'data_api_version is required when the Flow uses an endpoint.', '/');
  const ids = new Set<string>();
  let terminal = 0;
  screens.forEach((raw, s) => {
    const at = `/screens/${s}`;
    if (typeof raw !== 'object' || raw === null) {
      fail('INVALID_PROPERTY_TYPE', 'a screen is an object.', at);
      return;
    }
    const screen = raw as Json;
    const id = screen['id'];
    if (typeof id !== 'string' || !SCREEN_ID.test(id) || id === 'SUCCESS')
      fail('INVALID_SCREEN_ID', 'a screen id is letters and underscores, and not SUCCESS.', `${at}/id`);
    else if (ids.has(id)) fail('DUPLICATE_SCREEN_ID', `screen id ${id} is used twice.`, `${at}/id`);
    else ids.add(id);
    const layout = screen['layout'] as Json | undefined;
    if (layout?.['type'] !== 'SingleColumnLayout' || !Array.isArray(layout['children'])) {
      fail('INVALID_LAYOUT', 'layout must be {type: "SingleColumnLayout", children: [...]}.', `${at}/layout`);
      return;
    }
    const children = layout['children'] as Json[];
    if (children.length > COMPONENTS_PER_SCREEN)
      fail('TOO_MANY_COMPONENTS', `a screen holds at most ${COMPONENTS_PER_SCREEN} components.`, `${at}/layout`);
    const declared = new Set(Object.keys((screen['data'] as Json | undefined) ?? {}));
    for (const [key, decl] of Object.entries((screen['data'] as Json | undefined) ?? {}))
      if (typeof decl !== 'object' || decl === null || !('type' in decl) || !('__example__' in decl))
        fail('INVALID_DATA_DECLARATION', `data.${key} needs a type and an __example__.`, `${at}/data/${key}`);
    const names = new Set<string>();
    let footers = 0;
    children.forEach((c, i) => {
      const where = `${at}/layout/children/${i}`;
      const type = String(c['type']);
      if (type === 'Footer') {
        footers++;
        if (len(c['label']) === 0 || len(c['label']) > FOOTER_LABEL_MAX)
          fail('INVALID_PROPERTY_VALUE', `Footer label is 1..${FOOTER_LABEL_MAX} characters.`, `${where}/label`);
        if (typeof c['on-click-action'] !== 'object' || c['on-click-action'] === null)
          fail('MISSING_REQUIRED_PROPERTY', 'Footer needs an on-click-action.', where);
        return;
      }
      if (DISPLAY.has(type)) return;
      const spec = INPUTS[type];
      if (spec === undefined) {
        fail('INVALID_COMPONENT_TYPE', `unknown component type ${type}.`, `${where}/type`);
        return;
      }
      const name = c['name'];
      if (typeof name !== 'string' || name === '')
        fail('MISSING_REQUIRED_PROPERTY', `${type} needs a name.`, `${where}/name`);
      else if (names.has(name)) fail('DUPLICATE_COMPONENT_NAME', `component name ${name} is used twice.`, where);
      else names.add(name);
      if (len(c['label']) === 0 || len(c['label']) > spec.label)
        fail('INVALID_PROPERTY_VALUE', `${type} label is 1..${spec.label} characters.`, `${where}/label`);
      if (c['helper-text'] !== undefined && !TAKES_HELPER_TEXT.has(type))
        fail('INVALID_PROPERTY_KEY', `${type} has no property helper-text.`, `${where}/helper-text`);
      else if (c['helper-text'] !== undefined && typeof c['helper-text'] !== 'string')
        fail('INVALID_PROPERTY_TYPE', 'helper-text is a string.', `${where}/helper-text`);
      else if (len(c['helper-text']) > HELPER_TEXT_MAX)
        fail('INVALID_PROPERTY_VALUE', `helper-text is at most ${HELPER_TEXT_MAX} characters.`, `${where}/helper-text`);
      // COMPONENTS: every input takes `init-value` ("Available only when component is outside Form component.
      // Supported starting with Flow JSON version 4.0"): a Flow of an older version that sets one fails the upload.
      if (c['init-value'] !== undefined && Number(flow['version']) < 4)
        fail('INVALID_PROPERTY_KEY', `${type} has no property init-value before Flow JSON 4.0.`, `${where}/init-value`);
      if (c['required'] !== undefined && typeof c['required'] !== 'boolean')
        fail('INVALID_PROPERTY_TYPE', 'required is a boolean.', `${where}/required`);
      if (type === 'TextInput' && c['input-type'] !== undefined && !INPUT_TYPES.has(String(c['input-type'])))
        fail('INVALID_PROPERTY_VALUE', `input-type is one of ${[...INPUT_TYPES].join(', ')}.`, `${where}/input-type`);
      for (const k of ['min-chars', 'max-chars', 'max-length'])
        if (c[k] !== undefined && (!Number.isInteger(c[k]) || (c[k] as number) < 0))
          fail('INVALID_PROPERTY_TYPE', `${k} is a whole number.`, `${where}/${k}`);
      if (spec.options !== undefined) {
        const source = c['data-source'];
        if (typeof source === 'string') return; // a dynamic `${data.x}` source: checked by its declaration below
        if (!Array.isArray(source) || source.length < spec.options.min || source.length > spec.options.max) {
          fail(
            'INVALID_PROPERTY_VALUE',
            `${type} data-source has ${spec.options.min}..${spec.options.max} options.`,
            `${where}/data-source`,
          );
          return;
        }
        const optionIds = new Set<string>();
        for (const o of source as Json[]) {
          if (typeof o['id'] !== 'string' || o['id'] === '' || optionIds.has(o['id']))
            fail('INVALID_PROPERTY_VALUE', 'each option has a unique id.', `${where}/data-source`);
          else optionIds.add(o['id']);
          if (len(o['title']) === 0 || len(o['title']) > OPTION_TITLE_MAX)
            fail(
              'INVALID_PROPERTY_VALUE',
              `an option title is 1..${OPTION_TITLE_MAX} characters.`,
              `${where}/data-source`,
            );
        }
      }
    });
    if (footers > 1) fail('TOO_MANY_FOOTERS', 'a screen has at most one Footer.', `${at}/layout`);
    // FLOWJSON: "terminal": the screen ends the Flow, and a terminal screen must have a Footer.
    if (screen['terminal'] === true) {
      terminal++;
      if (footers === 0) fail('MISSING_FOOTER', 'a terminal screen needs a Footer.', `${at}/layout`);
    }
    // Dynamic references must resolve: ${data.x} to the screen's data, ${form.x} to one of its components.
    for (const key of references(children, 'data'))
      if (!declared.has(key)) fail('INVALID_DYNAMIC_REFERENCE', `\${data.${key}} is not in the screen's data.`, at);
    for (const key of references(children, 'form'))
      if (!names.has(key)) fail('INVALID_DYNAMIC_REFERENCE', `\${form.${key}} names no component.`, at);
  });
  if (terminal === 0) fail('MISSING_TERMINAL_SCREEN', 'a Flow needs at least one terminal screen.', '/screens');
  return errors;
}

/** The screen ids of a Flow JSON (for a flow message's `flow_action_payload.screen`). */
export function screenIds(json: Json | null): Set<string> {
  const screens = Array.isArray(json?.['screens']) ? (json?.['screens'] as Json[]) : [];
  return new Set(screens.map((s) => String(s['id'])));
}
