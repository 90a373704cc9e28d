/** Test support: one small Karta (a `Thing` whose pods are its `worker` role), as YAML, for the registration tests. */
export function thingKarta(name = 'thing', replicasPath = '.spec.replicas'): string {
  return `apiVersion: run.ai/v1alpha1
kind: Karta
metadata:
  name: ${name}
spec:
  structureDefinition:
    rootComponent:
      name: thing
      kind: {group: example.com, version: v1, kind: Thing}
      statusDefinition:
        conditionsDefinition: {path: .status.conditions}
        statusMappings:
          running: [{byConditions: [{type: Ready, status: "True"}]}]
    childComponents:
      - name: worker
        kind: {group: "", version: v1, kind: Pod}
        ownerRef: thing
        specDefinition: {podTemplateSpecPath: .spec.template}
        scaleDefinition: {replicasPath: ${replicasPath}}
        podSelector:
          componentTypeSelector: {keyPath: '.metadata.labels["role"]', value: worker}
`;
}
