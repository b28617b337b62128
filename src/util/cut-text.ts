/** A text kept up to a limit, the cut said, so that whoever reads it later knows it is not whole. */
export function cutText(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters not kept]`;
}
