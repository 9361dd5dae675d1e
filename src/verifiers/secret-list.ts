/**
 * The secrets of one variable, comma-separated: a signing secret is rotated by listing the new one beside the old
 * (`whsec_new,whsec_old`) until the platform has rolled. Kept apart from the checks so reading the configuration
 * does not load a vendor package.
 */
export function secretList(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
}
