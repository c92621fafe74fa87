/**
 * A skeleton as Datumaro's categories hold it (CVAT's `load_categories`): its points' names in the order
 * of its SVG's circles and its joints (the lines' `data-node-from`/`data-node-to`).
 */
import type { LabelRec } from '../model';

/** A skeleton's points (by name) and joints (pairs of point indices) as its SVG draws them. */
export function skeletonOf(
  label: LabelRec,
  sublabels: readonly LabelRec[],
): { labels: string[]; joints: number[][] } {
  const svg = label.svg ?? '';
  const joints = [...svg.matchAll(/<line\b[^>]*>/g)].map((m) => [
    Number(/data-node-from="(\d+)"/.exec(m[0])?.[1] ?? 0),
    Number(/data-node-to="(\d+)"/.exec(m[0])?.[1] ?? 0),
  ]);
  const byId = new Map(sublabels.map((s) => [String(s.id), s.name]));
  const circles = [...svg.matchAll(/<circle\b[^>]*>/g)]
    .map(
      (m) =>
        byId.get(/data-label-id="(\d+)"/.exec(m[0])?.[1] ?? '') ??
        /data-label-name="([^"]*)"/.exec(m[0])?.[1],
    )
    .filter((n): n is string => n !== undefined);
  // A skeleton the simulator holds without a drawing: its points in id order.
  return { labels: circles.length > 0 ? circles : sublabels.map((s) => s.name), joints };
}
