/**
 * A component rendered again only when its props changed as `same` judges them. A long conversation is a
 * thousand turns; without this every streamed delta, and every page of history put above, renders them all
 * again, and the main thread stalls for as long as that takes.
 */
import { Component, type ComponentType, type FunctionComponent } from "preact";

export function memo<P extends object>(Inner: FunctionComponent<P>, same: (a: P, b: P) => boolean): ComponentType<P> {
  return class Memo extends Component<P> {
    override shouldComponentUpdate(next: P): boolean {
      return !same(this.props, next);
    }
    override render() {
      return <Inner {...this.props} />;
    }
  };
}
