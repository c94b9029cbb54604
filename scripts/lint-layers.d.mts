// Types of lint-layers.mjs for the test that checks it (test/module-layers.test.ts).
export interface ModuleLayers {
  order: string[]
  allowedClimbs: Record<string, string>
  limits: { climbs: number; mutualPairs: number }
}
export interface LayerReport {
  climbs: string[]
  mutualPairs: string[]
  problems: string[]
}
export declare function moduleImports(
  modules: { source: string; dependencies: { resolved: string }[] }[],
): Set<string>
export declare function layerReport(imports: Set<string>, layers: ModuleLayers): LayerReport
export declare function formatReport(
  report: LayerReport,
  limits: { climbs: number; mutualPairs: number },
): string
